import Foundation
import HearClearModel
import Logging
import LoudnessCore
import PostgresNIO

extension CheckinRepository {
    public func find(id: UUID) async throws -> StoredCheckin? {
        try await storedContent(id: id)
    }

    func storedContent(id: UUID) async throws -> StoredCheckin? {
        try await storedContents("\(unescaped: Self.storedColumns) WHERE c.id = \(id)").first
    }

    /// Every check-in of the device whose row is `deviceKey`, oldest first (a phone's access to
    /// its data).
    public func checkins(ofDevice deviceKey: Int64) async throws -> [StoredCheckin] {
        try await storedContents(
            "\(unescaped: Self.storedColumns) WHERE c.device_id = \(deviceKey) ORDER BY c.started_at, c.id")
    }

    static let storedColumns = """
        SELECT c.id, v.external_id, d.client_id, d.model, c.source, c.started_at, c.samples,
               c.location_accuracy_m, c.distance_m, c.status, COALESCE(c.reasons, '{}'), c.level_dbfs,
               c.valid_seconds, c.judged_at, c.zone_guessed, c.receipt_status, COALESCE(c.receipt_reasons, '{}'),
               c.received_at, COALESCE(c.utc_offsets_min, ARRAY[c.utc_offset_min]), c.sample_count, c.ended_at,
               c.samples_removed_at, c.classes_classifier, c.classes_classifier_version, c.classes_vocabulary,
               c.class_window_offsets_s, c.class_window_seconds, c.class_window_classes, c.class_top_counts,
               c.class_top_labels, c.class_top_permille
        FROM checkins c JOIN venues v ON v.id = c.venue_id JOIN devices d ON d.id = c.device_id
        """

    private func storedContents(_ query: PostgresQuery) async throws -> [StoredCheckin] {
        let rows = try await client.query(query, logger: logger)
        var checkins: [StoredCheckin] = []
        for try await row in rows {
            var c = ColumnReader(row)
            let id: UUID = try c.next()
            let venueExternalID: String = try c.next()
            let deviceID: String = try c.next()
            let deviceModel: String? = try c.next()
            let source: String = try c.next()
            let startedAt: Date = try c.next()
            // NULL once the retention removed them (then `samplesRemovedAt` says when).
            let samples = try SampleSeries.column(try c.next(ByteBuffer?.self)) ?? .removed
            let accuracy: Double? = try c.next()
            let distance: Double? = try c.next()
            let status = try CheckinStatus(stored: try c.next())
            let reasons: [String] = try c.next()
            let level: Float? = try c.next()
            let validSeconds: Int? = try c.next()
            let judgedAt: Date? = try c.next()
            let zoneGuessed: Bool = try c.next()
            let receiptStatus = try CheckinStatus(stored: try c.next())
            let receiptReasons: [String] = try c.next()
            let receivedAt: Date = try c.next()
            let zones: [Int16] = try c.next()
            let sampleCount: Int = try c.next()
            let endedAt: Date = try c.next()
            let samplesRemovedAt: Date? = try c.next()
            let classes = try Self.readClasses(&c)
            let receipt = CheckinReceipt(
                id: id, venueExternalID: venueExternalID, status: receiptStatus,
                reasons: receiptReasons.map(JudgementReason.init(rawValue:)),
                receivedAt: receivedAt, sampleCount: sampleCount
            )
            let checkin = StoredCheckin(
                id: id, venueExternalID: venueExternalID, deviceID: deviceID, deviceModel: deviceModel,
                source: CheckinSource(rawValue: source) ?? .v2, startedAt: startedAt,
                offsetsSeconds: samples.offsetsSeconds, utcOffsetsMinutes: zones, averageDBFS: samples.averageDBFS,
                peakDBFS: samples.peakDBFS, locationAccuracyMetres: accuracy,
                distanceMetres: distance, status: status, reasons: reasons.map(JudgementReason.init(rawValue:)),
                levelDBFS: level,
                validSeconds: validSeconds, judgedAt: judgedAt, zoneGuessed: zoneGuessed, receipt: receipt,
                lceqDdB: samples.lceqDdB, bandIndexes: samples.bandIndexes, bandsDdB: samples.bandsDdB
            )
            var stored = checkin
            stored.endedAt = endedAt
            stored.samplesRemovedAt = samplesRemovedAt
            stored.classes = classes
            checkins.append(stored)
        }
        return checkins
    }

    /// The `classes_*` and `class_*` columns of ``storedColumns``; nil without windows.
    static func readClasses(_ c: inout ColumnReader) throws -> PhoneClasses? {
        let name: String? = try c.next()
        let version: String? = try c.next()
        let vocabulary: String? = try c.next()
        let offsets: [Int32]? = try c.next()
        let seconds: [Int16]? = try c.next()
        let classes: [Int16]? = try c.next()
        let counts: [Int16]? = try c.next()
        let labels: [String]? = try c.next()
        let permille: [Int16]? = try c.next()
        guard let name, let version, let vocabulary, let offsets, let seconds, let classes, let counts, let labels,
            let permille
        else { return nil }
        guard let vocabulary = ClassVocabulary(rawValue: vocabulary),
            counts.reduce(0, { $0 + Int($1) }) == labels.count, labels.count == permille.count
        else { throw StoreError.unexpected("check-in classes that do not line up") }
        var windows: [PhoneClasses.Window] = []
        windows.reserveCapacity(offsets.count)
        var start = 0
        for index in offsets.indices {
            let end = start + Int(counts[index])
            guard SoundClass.allCases.indices.contains(Int(classes[index])) else {
                throw StoreError.unexpected("check-in window class \(classes[index])")
            }
            windows.append(
                PhoneClasses.Window(
                    offsetSeconds: offsets[index], seconds: seconds[index], labels: Array(labels[start..<end]),
                    confidencesPermille: Array(permille[start..<end]),
                    soundClass: SoundClass.allCases[Int(classes[index])]))
            start = end
        }
        return PhoneClasses(
            classifierName: name, classifierVersion: version, vocabulary: vocabulary, windows: windows)
    }
}
