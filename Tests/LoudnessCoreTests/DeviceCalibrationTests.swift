import LoudnessCore
import Testing

@Suite("Device calibration")
struct DeviceCalibrationTests {
    /// Co-located check-ins (one other device each) with the given residuals against a 70 dB cell.
    private func checkins(_ residuals: [Double]) -> [CoLocatedCheckin] {
        residuals.map { CoLocatedCheckin(levelDB: 70 + $0, cellEstimateDB: 70, otherDeviceCount: 1) }
    }

    @Test func consistentlyLoudDeviceIsFlagged() {
        let bias = DeviceCalibration.bias(of: checkins([7, 8, 6.5]))

        // python3: statistics.median([7, 8, 6.5]) == 7
        #expect(bias.biasDB == 7)
        #expect(bias.checkinCount == 3)
        #expect(bias.isFlagged)
    }

    @Test func consistentlyQuietDeviceIsFlagged() {
        let bias = DeviceCalibration.bias(of: checkins([-8, -7, -6.5, 1]))

        // python3: statistics.median([-8, -7, -6.5, 1]) == -6.75
        #expect(bias.biasDB == -6.75)
        #expect(bias.isFlagged)
    }

    @Test func twoCheckinsAreNotEnough() {
        let bias = DeviceCalibration.bias(of: checkins([9, 10]))

        #expect(bias.biasDB == 9.5)
        #expect(!bias.isFlagged)
    }

    @Test func exactlySixDecibelsIsNotFlagged() {
        #expect(!DeviceCalibration.bias(of: checkins([6, 6, 6])).isFlagged)
        #expect(DeviceCalibration.bias(of: checkins([6.01, 6.01, 6.01])).isFlagged)
    }

    @Test func oneOddEveningIsNotABias() {
        // python3: statistics.median([0.5, -1, 25]) == 0.5
        let bias = DeviceCalibration.bias(of: checkins([0.5, -1, 25]))
        #expect(bias.biasDB == 0.5)
        #expect(!bias.isFlagged)
    }

    @Test func checkinsWithoutOtherDevicesAreIgnored() {
        let alone = [8.0, 9, 10].map {
            CoLocatedCheckin(levelDB: 70 + $0, cellEstimateDB: 70, otherDeviceCount: 0)
        }

        let bias = DeviceCalibration.bias(of: alone + checkins([7, 7]))

        #expect(bias.checkinCount == 2)
        #expect(!bias.isFlagged)
        #expect(DeviceCalibration.bias(of: alone).biasDB == nil)
    }
}
