import AudioClassification
import Foundation
import LoudnessCore

/// Puts a window's frame features (``CharacterWindowing``) together with its seconds' levels
/// into ``SoundFeatures`` and labels it by the AudioSet model's scores (``LearnedCharacterRules``)
/// when a model ran, else by ``SoundCharacterRules``.
enum SoundCharacterAnalysis {
    /// Classes kept per window for an admin to see why.
    static let topClassCount = 5

    /// Low and reference bands of the low-frequency excess, shared with the per-second rules.
    static let lowBands = SoundCharacterThresholds.lowFrequencyBands
    static let referenceBands = SoundCharacterThresholds.lowFrequencyReferenceBands

    static func character(
        samples: [LevelSample], windows: [CharacterWindowing.Window], rules: SoundCharacterRules,
        classifier: RecordingClassifier? = nil, learnedRules: LearnedCharacterRules = LearnedCharacterRules()
    ) -> SoundCharacter {
        let labelled = windows.map { window -> CharacterWindow in
            let seconds = samples[window.firstSecond..<min(samples.count, window.firstSecond + window.seconds)]
            let features = features(seconds: Array(seconds), window: window)
            guard let classifier else {
                let (label, reason) = rules.classify(features)
                return CharacterWindow(
                    offsetSeconds: window.firstSecond, seconds: window.seconds, label: label, reason: reason,
                    features: features)
            }
            guard let pooled = classifier.windowScores(firstSecond: window.firstSecond, seconds: window.seconds)
            else {
                // No patch scored: the level may still make it quiet, by the model's own first rule.
                let level = learnedRules.classify(features, LearnedCharacterRules.GroupScores())
                let quiet = level.label == .quiet
                return CharacterWindow(
                    offsetSeconds: window.firstSecond, seconds: window.seconds, label: quiet ? .quiet : .uncertain,
                    reason: quiet ? level.reason : "too short for the model (under one 0.96 s patch)",
                    features: features)
            }
            let patches = pooled.patches
            let groups = LearnedCharacterRules.GroupScores(pooled)
            let (label, reason) = learnedRules.classify(features, groups)
            let top = pooled.top.prefix(topClassCount).map {
                ClassScore(name: classifier.model.classNames[$0.index], score: Double($0.score))
            }
            return CharacterWindow(
                offsetSeconds: window.firstSecond, seconds: window.seconds, label: label,
                reason: reason + " (\(patches) patches)", features: features, topClasses: top, groupScores: groups)
        }
        let differences = samples.map { $0.cWeightedDBFS - $0.aWeightedDBFS }
        return SoundCharacter(
            windows: labelled, medianLcMinusLaDB: median(differences),
            classifier: classifier == nil ? SoundCharacter.rulesName : AudioSetModel.name)
    }

    static func features(seconds: [LevelSample], window: CharacterWindowing.Window) -> SoundFeatures {
        let laeq = energeticMean(seconds.map(\.aWeightedDBFS))
        let lceq = energeticMean(seconds.map(\.cWeightedDBFS))
        return SoundFeatures(
            laeqDBFS: laeq, lcMinusLaDB: lceq - laeq,
            lowFrequencyExcessDB: lowFrequencyExcess(seconds), flatnessDB: window.flatnessDB, fluxDB: window.fluxDB,
            lowEnergyShare: window.lowEnergyShare, modulationRatioDB: window.modulation?.ratioDB,
            modulationDepth: window.modulation?.depth)
    }

    /// Mean band power of 50–160 Hz over that of 500 Hz–4 kHz, each over the bands present and the
    /// window's seconds, dB.
    static func lowFrequencyExcess(_ seconds: [LevelSample]) -> Double? {
        func meanPower(_ bands: ClosedRange<Int>) -> Double? {
            var sum = 0.0
            var count = 0
            for second in seconds {
                for band in bands where band < second.bandsDBFS.count {
                    guard let level = second.bandsDBFS[band] else { continue }
                    sum += pow(10, level / 10)
                    count += 1
                }
            }
            return count > 0 ? sum / Double(count) : nil
        }
        guard let low = meanPower(lowBands), let reference = meanPower(referenceBands) else { return nil }
        return Decibels.fromMeanSquare(low) - Decibels.fromMeanSquare(reference)
    }

    static func energeticMean(_ levels: [Double]) -> Double {
        guard !levels.isEmpty else { return LevelSample.silenceFloorDBFS }
        return Decibels.fromMeanSquare(levels.reduce(0) { $0 + pow(10, $1 / 10) } / Double(levels.count))
    }

    static func median(_ values: [Double]) -> Double? {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return nil }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}
