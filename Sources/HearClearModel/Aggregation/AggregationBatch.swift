/// What one attempt of a worker to take queued venues found (`Aggregator.processNext`).
public struct AggregationBatch: Sendable, Equatable {
    /// Venues processed, their entries removed, oldest entry first.
    public var processed: [Int64]
    /// Queued venues another worker holds (or has just processed): leave them to it.
    public var busy: [Int64]
    /// Nothing (else) is queued.
    public var isEmpty: Bool { processed.isEmpty && busy.isEmpty }

    public init(processed: [Int64] = [], busy: [Int64] = []) {
        self.processed = processed
        self.busy = busy
    }
}
