/// The per-second samples of one check-in, as stored: three parallel arrays.
///
/// Offsets are seconds from the check-in's first sample (gaps allowed, strictly increasing);
/// levels are dBFS. Level values are not judged here: odd values are the cleaner's business.
public struct SessionSamples: Sendable, Equatable {
    /// Seconds since the start of the check-in, strictly increasing.
    public let offsetsSeconds: [Double]
    /// Per-second average (RMS) level, dBFS.
    public let averageDBFS: [Double]
    /// Per-second peak level, dBFS.
    public let peakDBFS: [Double]

    /// Number of samples (seconds).
    public var count: Int { offsetsSeconds.count }

    /// `init(offsetsSeconds:averageDBFS:peakDBFS:)`: checks that the three arrays have the same
    /// length and that offsets are finite and strictly increasing.
    public init(
        offsetsSeconds: [Double],
        averageDBFS: [Double],
        peakDBFS: [Double]
    ) throws(SessionSamplesError) {
        let count = offsetsSeconds.count
        guard averageDBFS.count == count else {
            throw .lengthMismatch(field: "averageDBFS", expected: count, actual: averageDBFS.count)
        }
        guard peakDBFS.count == count else {
            throw .lengthMismatch(field: "peakDBFS", expected: count, actual: peakDBFS.count)
        }
        for (index, offset) in offsetsSeconds.enumerated() {
            guard offset.isFinite else { throw .nonFiniteOffset(index: index) }
            if index > 0, offset <= offsetsSeconds[index - 1] {
                throw .offsetsNotIncreasing(index: index)
            }
        }
        self.offsetsSeconds = offsetsSeconds
        self.averageDBFS = averageDBFS
        self.peakDBFS = peakDBFS
    }
}
