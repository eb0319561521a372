import LoudnessCore
import Testing

@Suite("Level conversions")
struct LevelTests {
    @Test func amplitudeFromDBFS() {
        // python3: 10 ** (-20 / 20) == 0.1
        #expect(abs(Level.amplitude(fromDBFS: -20) - 0.1) < 1e-12)
        #expect(Level.amplitude(fromDBFS: 0) == 1)
    }

    @Test func dBFSFromAmplitude() {
        // python3: 20 * math.log10(0.5) == -6.020599913279624
        #expect(abs(Level.dBFS(fromAmplitude: 0.5) - -6.020599913279624) < 1e-12)
        #expect(Level.dBFS(fromAmplitude: 1) == 0)
    }

    @Test func silenceAndNonsenseHitTheFloor() {
        #expect(Level.dBFS(fromAmplitude: 0) == -160)
        #expect(Level.dBFS(fromAmplitude: -0.3) == -160)
        #expect(Level.dBFS(fromAmplitude: .nan) == -160)
        // 1e-9 would be −180 dBFS, under the floor.
        #expect(Level.dBFS(fromAmplitude: 1e-9) == -160)
    }

    @Test func roundTrip() {
        for level in [-90.0, -31.2, -6, 0, 3] {
            #expect(abs(Level.dBFS(fromAmplitude: Level.amplitude(fromDBFS: level)) - level) < 1e-9)
        }
    }

    @Test func energeticMean() throws {
        // python3: 10*math.log10(statistics.fmean([10**(x/10) for x in [60, 70]])) == 67.40362689494245
        let leq = try #require(Level.energeticMean([60, 70]))
        #expect(abs(leq - 67.40362689494245) < 1e-9)
        #expect(Level.energeticMean([-42.5, -42.5, -42.5]) == -42.5)
        #expect(Level.energeticMean([]) == nil)
    }

    @Test func energeticMeanDoesNotOverflow() throws {
        // 10^(4000/10) = 1e400 would overflow a Double; computing relative to the loudest copes.
        let leq = try #require(Level.energeticMean([4000, 4000]))
        #expect(abs(leq - 4000) < 1e-9)
    }

    @Test func calibratedLevel() {
        let offsets = CalibrationOffsets(deviceModelOffsetDB: 3.5, referenceOffsetDB: 110)
        // −40 + 3.5 + 110 = 73.5
        #expect(offsets.calibratedDB(fromDBFS: -40) == 73.5)
        #expect(CalibrationOffsets().calibratedDB(fromDBFS: -40) == -40)
    }
}
