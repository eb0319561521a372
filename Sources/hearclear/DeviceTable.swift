import Foundation
import HearClearEngine

/// `devices list` as a plain text table.
enum DeviceTable {
    static func render(_ devices: [DeviceReport]) -> String {
        guard !devices.isEmpty else { return "No devices." }
        let header = ["KEY", "DEVICE", "MODEL", "CHECKINS", "BIAS dB", "FLAG", "EXCLUDED", "LAST SEEN"]
        let rows = devices.map { device in
            [
                String(device.key), device.shortID, device.model ?? "-", String(device.checkins),
                device.bias.biasDB.map { String(format: "%+.1f (%d)", $0, device.bias.checkinCount) } ?? "-",
                device.bias.isFlagged ? "yes" : "", device.excluded ? "yes" : "",
                device.lastSeenAt.formatted(.iso8601),
            ]
        }
        return TextTable.render(header: header, rows: rows)
    }
}
