/// Accumulates interleaved frames into one `LevelSample` per second, one A- and C-weighting filter
/// per channel with state carried across seconds. Band levels are filled in later, from
/// ``SpectralMeter``.
struct SecondLevelMeter {
    let sampleRate: Int
    let channelCount: Int
    private var filters: [FrequencyWeightings]
    private var sumOfSquares = 0.0
    private var aSumOfSquares = 0.0
    private var cSumOfSquares = 0.0
    private var peak: Float = 0
    private(set) var framesInSecond = 0
    private(set) var samples: [LevelSample] = []

    init(sampleRate: Int, channelCount: Int) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        filters = Array(repeating: FrequencyWeightings(sampleRate: Double(sampleRate)), count: channelCount)
    }

    var framesLeftInSecond: Int { sampleRate - framesInSecond }

    /// Meters `frameCount` interleaved frames; they must not cross a second boundary.
    mutating func consume(_ interleaved: UnsafeBufferPointer<Float>, frameCount: Int) {
        precondition(frameCount <= framesLeftInSecond && frameCount * channelCount <= interleaved.count)
        for channel in 0..<channelCount {
            var filter = filters[channel]
            var squares = 0.0
            var aSquares = 0.0
            var cSquares = 0.0
            var channelPeak: Float = 0
            var index = channel
            for _ in 0..<frameCount {
                let sample = interleaved[index]
                let x = Double(sample)
                let (a, c) = filter.process(x)
                squares += x * x
                aSquares += a * a
                cSquares += c * c
                channelPeak = max(channelPeak, abs(sample))
                index += channelCount
            }
            filter.flushTinyState()
            filters[channel] = filter
            sumOfSquares += squares
            aSumOfSquares += aSquares
            cSumOfSquares += cSquares
            peak = max(peak, channelPeak)
        }
        framesInSecond += frameCount
        if framesInSecond == sampleRate { closeSecond() }
    }

    /// Applies the trailing-partial-second rule and reports what it did.
    mutating func finish() -> TrailingPartialSecond {
        guard framesInSecond > 0 else { return .none }
        let seconds = Double(framesInSecond) / Double(sampleRate)
        guard seconds >= TrailingPartialSecond.minimumIncludedSeconds else { return .dropped(seconds: seconds) }
        closeSecond()
        return .included(seconds: seconds)
    }

    private mutating func closeSecond() {
        let count = Double(framesInSecond * channelCount)
        samples.append(
            LevelSample(
                offsetSeconds: samples.count,
                averageDBFS: Decibels.fromMeanSquare(sumOfSquares / count),
                peakDBFS: Decibels.fromAmplitude(Double(peak)),
                aWeightedDBFS: Decibels.fromMeanSquare(aSumOfSquares / count),
                cWeightedDBFS: Decibels.fromMeanSquare(cSumOfSquares / count),
                bandsDBFS: []))
        sumOfSquares = 0
        aSumOfSquares = 0
        cSumOfSquares = 0
        peak = 0
        framesInSecond = 0
    }
}
