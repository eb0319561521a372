import Foundation
import LoudnessCore
import Testing

@Suite("Per-hour statistics of a check-in")
struct HourStatisticsTests {
    private let levels: [Double] = [
        -30, -32, -31, -35, -29, -33, -30.5, -34, -28, -31.5,
        -32.5, -30, -29.5, -33.5, -31, -36, -30, -32, -27, -31,
    ]
    private let friday21 = LocalHour(weekday: 5, hour: 21)

    @Test func statisticsOfOneHour() throws {
        var peaks = levels.map { $0 + 12 }
        peaks[4] = -5
        let samples = try SessionSamples(
            offsetsSeconds: levels.indices.map(Double.init), averageDBFS: levels, peakDBFS: peaks)

        let hours = try HourStatistics.perHour(
            samples: samples, kept: levels.map { _ in true },
            localHours: levels.map { _ in friday21 })

        let hour = try #require(hours.first)
        #expect(hours.count == 1)
        #expect(hour.localHour == friday21)
        // python3: 10*math.log10(statistics.fmean([10**(x/10) for x in levels])) == -30.7880970401688
        #expect(abs(hour.leqDBFS - -30.7880970401688) < 1e-9)
        // python3: q = statistics.quantiles(levels, n=10, method='inclusive')
        //          L10 = q[8] == -28.9, L50 = q[4] == -31.0, L90 = q[0] == -34.1
        #expect(abs(hour.l10DBFS - -28.9) < 1e-9)
        #expect(abs(hour.l50DBFS - -31.0) < 1e-9)
        #expect(abs(hour.l90DBFS - -34.1) < 1e-9)
        #expect(hour.maxPeakDBFS == -5)
        #expect(hour.validSeconds == 20)
        #expect(hour.countsInCell)
    }

    @Test func removedSecondsDoNotCount() throws {
        let withSpike = levels + [0]
        let samples = try SampleFactory.samples(withSpike)
        let kept = levels.map { _ in true } + [false]

        let hours = try HourStatistics.perHour(
            samples: samples, kept: kept, localHours: withSpike.map { _ in friday21 })

        let hour = try #require(hours.first)
        #expect(hour.validSeconds == 20)
        #expect(abs(hour.leqDBFS - -30.7880970401688) < 1e-9)
        // python3: max(levels) + 10 == -17 (the removed second's peak of +10 is ignored)
        #expect(hour.maxPeakDBFS == -17)
    }

    @Test func checkinAcrossAnHourCountsInBothButShortPiecesAreFlagged() throws {
        // 2026-06-05T20:59:35Z is a Friday (python3: datetime(2026,6,5,20,59,35).isoweekday() == 5):
        // 25 seconds fall in 20:00, 5 in 21:00.
        let tail: [Double] = [-40.0, -41.5, -39.0, -42.0, -40.5]
        let averages = SampleFactory.varied(25, around: -30) + tail
        let samples = try SampleFactory.samples(averages)
        let clock = VenueClock(utcOffsetMinutes: 0)
        let localHours = clock.localHours(
            start: .init(timeIntervalSince1970: 1_780_693_175), offsetsSeconds: samples.offsetsSeconds)

        let hours = try HourStatistics.perHour(
            samples: samples, kept: averages.map { _ in true }, localHours: localHours)

        #expect(hours.map(\.localHour) == [LocalHour(weekday: 5, hour: 20), friday21])
        #expect(hours.map(\.validSeconds) == [25, 5])
        #expect(hours.map(\.countsInCell) == [true, false])
        // python3: 10*math.log10(statistics.fmean([10**(x/10) for x in tail])) == -40.46812709717316
        #expect(abs(hours[1].leqDBFS - -40.46812709717316) < 1e-9)
    }

    @Test func tenValidSecondsIsTheMinimum() {
        func piece(_ seconds: Int) -> HourStatistics {
            HourStatistics(
                localHour: friday21, leqDBFS: -30, l10DBFS: -28, l50DBFS: -30, l90DBFS: -32,
                maxPeakDBFS: -10, validSeconds: seconds)
        }
        #expect(piece(10).countsInCell)
        #expect(!piece(9).countsInCell)
    }

    @Test func refusesArraysOfTheWrongLength() throws {
        let samples = try SampleFactory.samples(levels)

        #expect(
            throws: SessionSamplesError.lengthMismatch(field: "localHours", expected: 20, actual: 1)
        ) {
            try HourStatistics.perHour(
                samples: samples, kept: levels.map { _ in true }, localHours: [friday21])
        }
    }
}
