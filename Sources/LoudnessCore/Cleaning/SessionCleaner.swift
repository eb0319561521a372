/// Cleans the per-second samples of one check-in and judges whether it is usable
/// (docs/ARCHITECTURE.md, "Cleaning a check-in").
///
/// Steps, each looking only at the seconds still kept by the steps before it:
/// 1. `invalid`: average at or below −120 dBFS, above +6 dBFS, non-finite, or peak more than
///    0.5 dB under the average (the −160 dBFS silence floor lands here).
/// 2. `stuck`: ``StuckMeterDetector`` (≥ 5 consecutive seconds spanning < 0.01 dB).
/// 3. `spike`: ``HampelFilter`` (7 s window, 3 × 1.4826·MAD, 1 dB floor); its medians and MADs
///    use only seconds kept after steps 1–2.
/// 4. `after_spike`: kept seconds up to 2 s after a spike (meters decay slowly).
/// 5. `dropout`: ``DropoutDetector`` on what is left (15 s running median ≥ 10 dB under the
///    session median for ≥ 10 s).
///
/// The check-in is accepted with ≥ 15 valid seconds and ≥ 50 % of its seconds valid. Otherwise
/// it is excluded as `stuck_meter` or `dropout` when that reason removed more than half of the
/// removed seconds, else `too_few_valid_seconds` (under 15 valid) or `too_little_valid_share`.
public struct SessionCleaner: Sendable {
    /// The thresholds used; the defaults unless changed.
    public var rules: CleaningRules

    /// `init(rules:)`: a cleaner with the given thresholds.
    public init(rules: CleaningRules = CleaningRules()) {
        self.rules = rules
    }

    /// `clean(_:)`: a rejection reason (or `nil` for kept) per second, and the check-in verdict.
    public func clean(_ samples: SessionSamples) -> CleanedSession {
        let offsets = samples.offsetsSeconds
        let levels = samples.averageDBFS
        var rejections = samples.averageDBFS.indices.map { index -> SecondRejection? in
            isValid(average: levels[index], peak: samples.peakDBFS[index]) ? nil : .invalid
        }
        let stuck = StuckMeterDetector.stuck(levels: levels, considered: kept(rejections), rules: rules)
        mark(&rejections, where: stuck, as: .stuck)
        let spikes = HampelFilter.spikes(
            offsets: offsets, levels: levels, considered: kept(rejections), rules: rules)
        mark(&rejections, where: spikes, as: .spike)
        let reach = rules.afterSpikeSeconds + TimeWindow.toleranceSeconds
        for spike in spikes.indices where spikes[spike] {
            var next = spike + 1
            while next < offsets.count, offsets[next] - offsets[spike] < reach {
                if rejections[next] == nil { rejections[next] = .afterSpike }
                next += 1
            }
        }
        let dropouts = DropoutDetector.dropouts(
            offsets: offsets, levels: levels, considered: kept(rejections), rules: rules)
        mark(&rejections, where: dropouts, as: .dropout)
        return CleanedSession(rejections: rejections, verdict: verdict(for: rejections))
    }

    /// `isValid(average:peak:)`: the per-second validity rule of step 1.
    public func isValid(average: Double, peak: Double) -> Bool {
        average.isFinite && peak.isFinite
            && average > rules.minimumLevelDBFS
            && average <= rules.maximumLevelDBFS
            && peak >= average - rules.peakToleranceDB
    }

    /// `verdict(for:)`: the check-in rule (≥ 15 valid seconds and ≥ 50 % valid) and its reason.
    public func verdict(for rejections: [SecondRejection?]) -> CheckinVerdict {
        let total = rejections.count
        let valid = rejections.count { $0 == nil }
        let enoughSeconds = valid >= rules.minimumValidSeconds
        let enoughShare = Double(valid) >= rules.minimumValidShare * Double(total)
        if enoughSeconds && enoughShare { return .accepted }
        let removed = total - valid
        if removed > 0, 2 * rejections.count(where: { $0 == .stuck }) > removed {
            return .excluded(.stuckMeter)
        }
        if removed > 0, 2 * rejections.count(where: { $0 == .dropout }) > removed {
            return .excluded(.dropout)
        }
        return .excluded(enoughSeconds ? .tooLittleValidShare : .tooFewValidSeconds)
    }

    private func kept(_ rejections: [SecondRejection?]) -> [Bool] {
        rejections.map { $0 == nil }
    }

    private func mark(
        _ rejections: inout [SecondRejection?], where flags: [Bool], as reason: SecondRejection
    ) {
        for index in flags.indices where flags[index] && rejections[index] == nil {
            rejections[index] = reason
        }
    }
}
