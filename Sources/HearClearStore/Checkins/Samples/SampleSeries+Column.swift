import HearClearModel
import PostgresNIO

/// `checkins.samples` (migration 0017): a ``SampleSeries`` in ``SampleCodec``'s bytes, NULL once
/// the retention removed it.
extension SampleSeries {
    /// What a submission stores.
    public init(_ submission: CheckinSubmission) {
        self.init(
            offsetsSeconds: submission.offsetsSeconds, averageDBFS: submission.averageDBFS,
            peakDBFS: submission.peakDBFS, lceqDdB: submission.lceqDdB, bandIndexes: submission.bandIndexes,
            bandsDdB: submission.bandsDdB)
    }

    /// A check-in whose samples were removed: no samples, no spectra.
    static let removed = SampleSeries(offsetsSeconds: [], averageDBFS: [], peakDBFS: [])

    /// The column's value (bind it as `bytea`; a `[UInt8]` would be bound as an array); throws
    /// ``SampleCodecError/misaligned(_:)`` for arrays that do not line up.
    public var column: ByteBuffer {
        get throws { ByteBuffer(bytes: try SampleCodec.encode(self)) }
    }

    /// The series the column holds; nil for NULL.
    public static func column(_ value: ByteBuffer?) throws -> SampleSeries? {
        guard let value else { return nil }
        do {
            return try SampleCodec.decode(Array(buffer: value))
        } catch {
            throw StoreError.unexpected("\(error)")
        }
    }
}
