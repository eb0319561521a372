import LoudnessCore
import Testing

@Suite("Venue weekday + hour profile")
struct VenueProfileTests {
    /// Three check-ins in each cell of Monday–Wednesday × 20:00–22:00, exactly
    /// 60 + (0, 2, 4 by day) + (0, 5, 10 by hour), except `skipping`.
    private func additive(skipping: LocalHour? = nil) -> [(hour: LocalHour, levelDB: Double)] {
        var levels: [(hour: LocalHour, levelDB: Double)] = []
        for weekday in 1...3 {
            for hour in 20...22 where LocalHour(weekday: weekday, hour: hour) != skipping {
                let level = 60 + 2 * Double(weekday - 1) + 5 * Double(hour - 20)
                levels += Array(repeating: (LocalHour(weekday: weekday, hour: hour), level), count: 3)
            }
        }
        return levels
    }

    private func close(_ value: Double?, _ expected: Double) -> Bool {
        value.map { abs($0 - expected) < 1e-9 } ?? false
    }

    @Test func anAdditiveVenueIsFittedExactly() throws {
        let profile = try #require(VenueProfile.fit(additive()))

        #expect(close(profile.prediction(for: LocalHour(weekday: 2, hour: 21)), 67))
        #expect(close(profile.prediction(for: LocalHour(weekday: 3, hour: 22)), 74))
        #expect(close(profile.residualScaleDB, 0))
    }

    @Test func anEmptyCellIsPredictedFromItsWeekdayAndHour() throws {
        // Wednesday 22:00 has no check-in; its row and column say 60 + 4 + 10.
        let profile = try #require(VenueProfile.fit(additive(skipping: LocalHour(weekday: 3, hour: 22))))

        #expect(close(profile.prediction(for: LocalHour(weekday: 3, hour: 22)), 74))
    }

    @Test func junkBarelyMovesTheProfile() throws {
        // Three pocket check-ins at 30 dB in Monday 20:00 (6 check-ins there, 30 in all):
        // every median is still an honest value, so the fit is exact for the honest ones; the
        // residuals are 27 zeros and three 30s, whose median is 0.
        let profile = try #require(
            VenueProfile.fit(additive() + Array(repeating: (LocalHour(weekday: 1, hour: 20), 30), count: 3)))

        #expect(close(profile.prediction(for: LocalHour(weekday: 1, hour: 20)), 60))
        #expect(close(profile.residualScaleDB, 0))
    }

    @Test func theResidualScaleIsTheRobustSDAboutTheFit() throws {
        // ±1 dB about the additive levels in every cell (+1, −1, and 0): residuals 1, 1, 0 per cell
        // once the fit is exact; python3: 1.4826 * statistics.median([1, 1, 0] * 9) == 1.4826.
        let noisy = additive().enumerated().map { index, level in
            (hour: level.hour, levelDB: level.levelDB + [1.0, -1.0, 0.0][index % 3])
        }

        let profile = try #require(VenueProfile.fit(noisy))

        #expect(close(profile.prediction(for: LocalHour(weekday: 2, hour: 21)), 67))
        #expect(abs(profile.residualScaleDB - 1.4826) < 1e-12)
    }

    @Test func tooLittleDataGivesNoProfileOrNoPrediction() throws {
        // 18 check-ins (Monday and Tuesday only) are under the 20 needed.
        #expect(VenueProfile.fit(Array(additive().prefix(18))) == nil)
        let profile = try #require(VenueProfile.fit(additive()))
        // Thursday has no check-in; 23:00 neither.
        #expect(profile.prediction(for: LocalHour(weekday: 4, hour: 21)) == nil)
        #expect(profile.prediction(for: LocalHour(weekday: 2, hour: 23)) == nil)
    }
}
