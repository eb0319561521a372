import Testing

@testable import LoudnessCore

@Suite("Crowd calibration of phone models")
struct CrowdCalibrationTests {
    /// Every cell measured once by a device of each model; the models read `biases` above the
    /// truth; cell c's true level is −40 + (c % 7) dBFS. Device `cell · 10 + k` is model k's.
    static func city(
        biases: [String: Double], cells: Range<Int> = 0..<40, devicesPerModel: Int = 4,
        junk: (Int) -> Double = { _ in 0 }
    ) -> [CrowdObservation] {
        var observations: [CrowdObservation] = []
        for cell in cells {
            for (k, (model, bias)) in biases.sorted(by: { $0.key < $1.key }).enumerated() {
                let device = Int64(k * 1000 + cell % devicesPerModel)
                let level = -40 + Double(cell % 7) + bias + junk(cell * 31 + k)
                observations.append(
                    CrowdObservation(cell: Int64(cell), device: device, model: model, levelDBFS: level, checkins: 1))
            }
        }
        return observations
    }

    @Test func exactDataGivesTheBiasesLessTheirMean() throws {
        // Biases 2, −1 and 0.5 dB with equal evidence: their mean is 0.5, so (by hand) the
        // offsets that correct them are −1.5, +1.5 and 0.
        let fit = CrowdCalibration().fit(Self.city(biases: ["A": 2, "B": -1, "C": 0.5]))
        #expect(fit.cells == 40)
        #expect(fit.observations == 120)
        for (model, expected) in [("A", -1.5), ("B", 1.5), ("C", 0.0)] {
            let offset = try #require(fit.model(model))
            #expect(abs(offset.offsetDB - expected) < 0.01, "\(model): \(offset.offsetDB)")
            #expect(offset.status == .fitted)
            #expect(offset.checkins == 40)
            #expect(offset.devices == 4)
            #expect(offset.component == "A")
            #expect(!offset.anchored)
        }
        // Exact data: no device deviates.
        #expect(fit.devices.allSatisfy { abs($0.offsetDB) < 0.01 })
    }

    @Test func junkDoesNotMoveTheOffsets() throws {
        // One observation in eight reads 15 to 25 dB high (a pocket, a shout into the phone).
        let fit = CrowdCalibration().fit(
            Self.city(biases: ["A": 2, "B": -1, "C": 0.5], cells: 0..<80) { key in
                key % 8 == 3 ? 15 + Double(key % 11) : 0
            })
        for (model, expected) in [("A", -1.5), ("B", 1.5), ("C", 0.0)] {
            let offset = try #require(fit.model(model))
            #expect(abs(offset.offsetDB - expected) < 0.3, "\(model): \(offset.offsetDB)")
        }
        // A plain mean would be pulled by about 20/8 = 2.5 dB for the model with the most junk:
        // the Huber weights keep each offset within 0.3 dB.
    }

    @Test func aModelWithLittleEvidenceGetsNoOffset() throws {
        // "rare" meets the others in 5 cells only: below the 10 co-located check-ins needed.
        var observations = Self.city(biases: ["A": 1, "B": -1])
        for cell in 0..<5 {
            observations.append(
                CrowdObservation(
                    cell: Int64(cell), device: 9_999, model: "rare", levelDBFS: -40 + Double(cell % 7) + 4,
                    checkins: 1))
        }
        let fit = CrowdCalibration().fit(observations)
        let rare = try #require(fit.model("rare"))
        #expect(rare.status == .insufficientEvidence)
        #expect(rare.offsetDB == 0)
        #expect(rare.standardErrorDB == nil)
        #expect(rare.checkins == 5)
        #expect(try #require(fit.model("A")).status == .fitted)
    }

    @Test func modelsThatNeverMetAreCentredApart() throws {
        // A and B share cells 0–39, C and D cells 100–139: two components, each with mean 0.
        let fit = CrowdCalibration().fit(
            Self.city(biases: ["A": 3, "B": 1]) + Self.city(biases: ["C": -2, "D": 2], cells: 100..<140))
        let offsets = Dictionary(uniqueKeysWithValues: fit.models.map { ($0.model, $0) })
        #expect(abs((offsets["A"]?.offsetDB ?? 9) - -1) < 0.01)
        #expect(abs((offsets["B"]?.offsetDB ?? 9) - 1) < 0.01)
        #expect(abs((offsets["C"]?.offsetDB ?? 9) - 2) < 0.01)
        #expect(abs((offsets["D"]?.offsetDB ?? 9) - -2) < 0.01)
        #expect(offsets["A"]?.component == "A" && offsets["B"]?.component == "A")
        #expect(offsets["C"]?.component == "C" && offsets["D"]?.component == "C")
    }

    @Test func anAnchorFixesItsComponentsAbsoluteLevel() throws {
        // Relative offsets −1.5, +1.5, 0 (first test); a reference calibration says B needs +2.5:
        // the whole component moves by +1.0 (by hand: 2.5 − 1.5), the other component does not.
        let fit = CrowdCalibration().fit(
            Self.city(biases: ["A": 2, "B": -1, "C": 0.5]) + Self.city(biases: ["X": 1, "Y": -1], cells: 200..<240),
            anchors: ["B": 2.5])
        for (model, expected, anchored) in [
            ("A", -0.5, true), ("B", 2.5, true), ("C", 1.0, true), ("X", -1.0, false), ("Y", 1.0, false),
        ] {
            let offset = try #require(fit.model(model))
            #expect(abs(offset.offsetDB - expected) < 0.01, "\(model): \(offset.offsetDB)")
            #expect(offset.anchored == anchored)
        }
    }

    @Test func aDeviceDeviationIsShrunkTowardItsModel() throws {
        // Model A's devices read true except device 7, which reads 2 dB high; many other devices
        // share its cells; every reading has ±0.5 or ±1.5 dB of noise (real cells have a robust
        // scale of a few dB, not 0). Its deviation is found with the right sign but shrunk: less
        // than 2 dB, and closer to 2 dB with more check-ins.
        func deviation(cells: Int) throws -> DeviceDeviationFit {
            var observations: [CrowdObservation] = []
            for cell in 0..<cells {
                for device in 0..<6 {
                    let noise = [-1.5, -0.5, 0.5, 1.5][(cell * 7 + device) % 4]
                    let level = -40 + Double(cell % 5) + (device == 0 ? 2 : 0) + noise
                    let key = device == 0 ? Int64(7) : Int64(100 + (cell * 5 + device) % 40)
                    observations.append(
                        CrowdObservation(cell: Int64(cell), device: key, model: "A", levelDBFS: level, checkins: 1))
                }
            }
            return try #require(CrowdCalibration().fit(observations).devices.first { $0.device == 7 })
        }
        let few = try deviation(cells: 4)
        let many = try deviation(cells: 60)
        #expect(few.offsetDB < -0.3 && few.offsetDB > -2)
        #expect(many.offsetDB < few.offsetDB)
        #expect(many.offsetDB > -2)
        #expect(many.checkins == 60)
        let manyError = try #require(many.standardErrorDB)
        let fewError = try #require(few.standardErrorDB)
        #expect(manyError < fewError)
    }

    @Test func aBrokenPhoneGetsNoCorrection() throws {
        // Device 7 reads 30 dB above its model in every cell (always full scale): far beyond the
        // 6 dB of a miscalibrated phone, it gets no deviation, and the models' offsets hold.
        var observations = Self.city(biases: ["A": 2, "B": -2])
        for cell in 0..<40 {
            observations.append(
                CrowdObservation(
                    cell: Int64(cell), device: 7, model: "A", levelDBFS: -40 + Double(cell % 7) + 32, checkins: 1))
        }
        let fit = CrowdCalibration().fit(observations)
        let broken = try #require(fit.devices.first { $0.device == 7 })
        #expect(broken.offsetDB == 0 && broken.standardErrorDB == nil)
        #expect(abs((fit.model("A")?.offsetDB ?? 9) - -2) < 0.3)
        #expect(abs((fit.model("B")?.offsetDB ?? 9) - 2) < 0.3)
    }

    @Test func cellsWithOneDeviceAreIgnored() {
        let fit = CrowdCalibration().fit([
            CrowdObservation(cell: 1, device: 1, model: "A", levelDBFS: -30, checkins: 3),
            CrowdObservation(cell: 2, device: 2, model: "B", levelDBFS: -20, checkins: 3),
        ])
        #expect(fit.models.isEmpty)
        #expect(fit.cells == 0)
    }
}

@Suite("Which model offset is in force")
struct ModelOffsetPolicyTests {
    @Test func anchorsAreTheMedianReferenceLessTheServersOffset() {
        // Tone calibrations of model A say 118, 120 and 121 dB SPL at 0 dBFS: median 120; with
        // the server's reference offset of 110 the model offset is +10 (by hand).
        let anchors = ModelOffsetPolicy.anchors(
            absoluteOffsets: ["A": [121, 118, 120], "B": []], referenceOffsetDB: 110)
        #expect(anchors == ["A": 10])
    }

    @Test func overrideBeatsReferenceBeatsCrowd() {
        let fit = CrowdCalibration().fit(
            CrowdCalibrationTests.city(biases: ["A": 2, "B": -1, "C": 0.5, "D": 0]), anchors: ["B": 2.5])
        let inForce = ModelOffsetPolicy.inForce(fit: fit, anchors: ["B": 2.5], overrides: ["C": -4])
        #expect(inForce["B"] == ModelOffsetInForce(model: "B", offsetDB: 2.5, source: .reference))
        #expect(inForce["C"] == ModelOffsetInForce(model: "C", offsetDB: -4, source: .override))
        #expect(inForce["A"]?.source == .crowd)
        // Biases 2, −1, 0.5, 0 relative; B anchored at +2.5 means a bias of −2.5 truly: A's
        // offset is −(2 − (−1)) + 2.5 = −0.5 (by hand).
        #expect(abs((inForce["A"]?.offsetDB ?? 9) - -0.5) < 0.01)
        #expect(inForce.count == 4)
    }
}
