import Foundation
import HearClearModel
import HearClearStore
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The aggregation worker (docs/ARCHITECTURE.md, "The aggregation queue and worker"): a `Service`
/// in every `serve` instance. It drains the queue whenever ingest NOTIFYs `hearclear_aggregation`
/// (LISTEN on a connection of its own), and every `pollInterval` in case a notification was missed
/// (e.g. while reconnecting). Any number of workers may share one database: ``AggregationQueue``
/// keeps them off each other's venues. On graceful shutdown it finishes the venue in hand and
/// stops.
public struct AggregationWorker: Service {
    let aggregator: Aggregator
    let client: PostgresClient
    let pollInterval: Duration
    let gate: StartupGate
    let logger: Logger
    /// Batches processed at once by this instance (each in its own transaction).
    let concurrency: Int
    /// Where an outage is told (logged once) and its end.
    let outage: DatabaseOutage
    /// Set when graceful shutdown begins: a batch stuck on a dead connection is then given up.
    let stopping = Flag()

    /// A flag shared by the worker and the batches it watches.
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .relaxed) }
        var isSet: Bool { value.load(ordering: .relaxed) }
    }
    /// The crowd calibration and how often it runs (the first fit one interval after start);
    /// `nil`: never.
    let calibration: (calibrator: Calibrator, interval: Duration)?
    /// Days a check-in keeps its per-second samples (``SampleRetention``); `nil`: for ever.
    let sampleRetentionDays: Int?
    /// Most venues in one batch (one transaction): a batch costs the same dozen round trips
    /// whatever its size, so under load the worker takes more venues at a time and keeps up.
    static let batchSize = 32

    /// `gate` holds the worker until the schema is ready (opened after migrations).
    public init(
        client: PostgresClient, logger: Logger, pollInterval: Duration = .seconds(2),
        gate: StartupGate = StartupGate(open: true), concurrency: Int = 2, outage: DatabaseOutage = DatabaseOutage(),
        calibration: (calibrator: Calibrator, interval: Duration)? = nil, sampleRetentionDays: Int? = nil
    ) {
        self.calibration = calibration
        self.sampleRetentionDays = sampleRetentionDays
        self.outage = outage
        self.aggregator = Aggregator(client: client, logger: logger)
        self.client = client
        self.pollInterval = pollInterval
        self.gate = gate
        self.logger = logger
        self.concurrency = max(1, concurrency)
    }

    public func run() async throws {
        let (wakes, waker) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await listen(waker) }
                group.addTask { await poll(waker) }
                if let calibration {
                    group.addTask { await calibrate(calibration.calibrator, every: calibration.interval) }
                }
                if let sampleRetentionDays {
                    group.addTask { await removeOldSamples(olderThan: sampleRetentionDays) }
                }
                group.addTask { await makePartitionsAhead() }
                // A start that fails before the schema is ready shuts the worker down here.
                if await gate.wait() {
                    for await _ in wakes {
                        if Task.isShuttingDownGracefully || Task.isCancelled { break }
                        // Several drains share the queue safely: the venue locks keep them on
                        // different venues. At high priority: when ingest saturates the CPU, the
                        // judgement goes first and ingest slows a little, instead of the queue
                        // (and the grid's freshness) falling behind by seconds.
                        await withTaskGroup(of: Int.self) { drains in
                            for _ in 0..<concurrency { drains.addTask(priority: .high) { await drain() } }
                        }
                    }
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            stopping.set()
            waker.finish()
            Task { await gate.abandon() }
        }
        logger.info("aggregation worker stopped")
    }

    /// Processes queued venues, a batch at a time, until none is left that another worker is not
    /// holding; returns how many it processed. A venue another worker holds is skipped only until
    /// this drain next processes something: under sustained load a drain never runs dry, and a
    /// venue skipped for good by every drain would wait for all of them to end. When a batch
    /// fails, the rest of the drain takes one venue at a time, so a venue whose work fails is
    /// logged, left queued and skipped until the next drain while the others go on.
    public func drain() async -> Int {
        var busy: Set<Int64> = []
        var failed: Set<Int64> = []
        var processed = 0
        var limit = Self.batchSize
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                // A batch in flight when the database died may wait forever on its dead
                // connection: given up once the outage has ended (or at shutdown); its venues,
                // still queued, are taken again.
                let endedOutages = outage.endedOutages
                let (aggregator, skipping, stopping, outage, limit) = (
                    aggregator, busy.union(failed), stopping, outage, limit
                )
                let batch = try await abandonable {
                    try await aggregator.processNext(limit: limit, skipping: skipping)
                } abandon: {
                    stopping.isSet || outage.endedOutages != endedOutages
                }
                outage.answered(logger: logger)
                if batch.isEmpty { return processed }
                processed += batch.processed.count
                if !batch.processed.isEmpty { busy = [] }
                busy.formUnion(batch.busy)
            } catch let failure as AggregationQueue.VenueFailure where DatabaseOutage.isOutage(failure.underlying) {
                // The database went away mid-batch: not the venues' fault. Told once; the next
                // poll tries again.
                outage.failed(failure.underlying, logger: logger)
                return processed
            } catch let failure as AggregationQueue.VenueFailure {
                if failure.venueIDs.count > 1 {
                    logger.warning(
                        "aggregation batch failed; retrying its venues one at a time",
                        metadata: ["venueKeys": "\(failure.venueIDs)", "error": "\(failure.underlying)"])
                    limit = 1
                } else {
                    logger.error(
                        "aggregation failed",
                        metadata: ["venueKey": "\(failure.venueIDs.first ?? 0)", "error": "\(failure.underlying)"])
                    failed.formUnion(failure.venueIDs)
                }
            } catch is Abandoned {
                logger.warning("aggregation batch given up: it began before the database came back")
                return processed
            } catch  where DatabaseOutage.isOutage(error) {
                // Told once for the outage; the next poll tries again.
                outage.failed(error, logger: logger)
                return processed
            } catch {
                logger.error("aggregation queue unavailable", metadata: ["error": "\(error)"])
                return processed
            }
        }
        return processed
    }

    /// LISTENs and turns every notification into a wake-up; listens again a second after a loss.
    private func listen(_ waker: AsyncStream<Void>.Continuation) async {
        await client.listenContinuously(on: AggregationQueue.channel) {
            waker.yield()  // catch up on anything queued while not listening
        } notified: { _ in
            waker.yield()
        } lost: { error in
            guard let error else { return }
            // Once an outage is known it is told once; a lost connection alone is not one.
            if outage.isDown {
                logger.debug("aggregation LISTEN lost while the database is away")
            } else {
                logger.warning("aggregation LISTEN lost; retrying", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Refits the calibration every `interval` once the schema is ready; a failure is logged and
    /// the next interval tries again.
    private func calibrate(_ calibrator: Calibrator, every interval: Duration) async {
        guard await gate.wait() else { return }
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            do {
                try await calibrator.refit()
            } catch {
                logger.error("calibration failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Once the schema is ready and then every hour, removes the samples of the check-ins
    /// received more than `days` days ago (``SampleRetention``); logs what it freed.
    private func removeOldSamples(olderThan days: Int) async {
        let retention = SampleRetention(client: client, logger: logger)
        await hourly(failure: "sample retention failed") {
            let pass = try await retention.strip(receivedBefore: Date().addingTimeInterval(-Double(days) * 86_400))
            if pass.checkins > 0 {
                logger.info(
                    "samples removed past the retention",
                    metadata: [
                        "checkins": "\(pass.checkins)", "bytes": "\(pass.bytes)",
                        "bytesPerCheckin": "\(pass.bytes / pass.checkins)", "days": "\(days)",
                    ])
            }
        }
    }

    /// Once the schema is ready and then every hour, makes the monthly partitions of `checkins`
    /// that ingest will need (``CheckinPartitions/makeAhead(of:)``), so that a new month's first
    /// check-in does not wait on the lock a new partition takes.
    private func makePartitionsAhead() async {
        let partitions = CheckinPartitions(client: client, logger: logger)
        await hourly(failure: "making check-in partitions failed") {
            let made = try await partitions.makeAhead(of: Date())
            if made > 0 { logger.info("check-in partitions made ahead", metadata: ["partitions": "\(made)"]) }
        }
    }

    /// Runs `work` once the schema is ready and then every hour until cancelled; a failure is
    /// logged as `failure` and the next hour tries again.
    private func hourly(failure: Logger.Message, _ work: () async throws -> Void) async {
        guard await gate.wait() else { return }
        while !Task.isCancelled {
            do {
                try await work()
            } catch {
                logger.error(failure, metadata: ["error": "\(error)"])
            }
            do { try await Task.sleep(for: .seconds(3_600)) } catch { return }
        }
    }

    private func poll(_ waker: AsyncStream<Void>.Continuation) async {
        while !Task.isCancelled {
            waker.yield()
            try? await Task.sleep(for: pollInterval)
        }
    }
}
