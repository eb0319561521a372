import Foundation
import HearClearModel
import LoudnessCore

/// The bands editor's rows as typed, and the bands they make once validated: labels 1–40
/// characters, bounds numbers in 0–200 dB rounded to 0.1, then `Bands`' own rules (ordered,
/// strictly increasing, exactly the last unbounded: no gaps, no overlaps).
struct BandsForm {
    struct Row {
        let label: String
        let below: String
    }

    static let maximumRows = 12

    let rows: [Row]

    init(_ form: FormFields) {
        let labels = form.all("label")
        let bounds = form.all("below")
        rows = (0..<min(max(labels.count, bounds.count), Self.maximumRows)).map { index in
            Row(
                label: index < labels.count ? labels[index].trimmingCharacters(in: .whitespaces) : "",
                below: index < bounds.count ? bounds[index].trimmingCharacters(in: .whitespaces) : ""
            )
        }
    }

    /// The current bands as editable rows, with `spare` empty rows to add bands.
    init(bands: [StoredBand], spare: Int = 2) {
        rows =
            bands.map { Row(label: $0.label, below: $0.belowDB.map { AdminFormat.bound($0) } ?? "") }
            + Array(repeating: Row(label: "", below: ""), count: spare)
    }

    /// The bands, or the problems found (one sentence each).
    func validated() -> Result<[StoredBand], BandsFormError> {
        var bands: [StoredBand] = []
        var problems: [String] = []
        for (index, row) in rows.enumerated() where !(row.label.isEmpty && row.below.isEmpty) {
            let number = index + 1
            guard !row.label.isEmpty else {
                problems.append("Row \(number) has a bound but no label.")
                continue
            }
            guard row.label.count <= 40 else {
                problems.append("Row \(number): a label has at most 40 characters.")
                continue
            }
            var bound: Double?
            if !row.below.isEmpty {
                guard let value = Double(row.below.replacingOccurrences(of: ",", with: ".")), value.isFinite,
                    (0...200).contains(value)
                else {
                    problems.append("Row \(number): “\(row.below)” is not a level between 0 and 200 dB.")
                    continue
                }
                bound = (value * 10).rounded() / 10
            }
            bands.append(StoredBand(label: row.label, belowDB: bound))
        }
        guard problems.isEmpty else { return .failure(BandsFormError(problems: problems)) }
        do {
            _ = try Bands(bands.map { Band(label: $0.label, belowDB: $0.belowDB) })
        } catch {
            return .failure(
                BandsFormError(problems: [
                    error.description.prefix(1).uppercased() + error.description.dropFirst() + "."
                ]))
        }
        return .success(bands)
    }
}

struct BandsFormError: Error {
    let problems: [String]
}
