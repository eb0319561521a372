import HearClearModel

/// The context of `bands.mustache`.
struct BandsPage {
    struct Current {
        let label: String
        let range: String
        let position: Int
    }

    struct Preview {
        struct Transition {
            let from: String
            let to: String
            let cells: String
        }

        let summary: String
        let transitions: [Transition]

        init(_ change: BandChangePreview) {
            summary =
                "\(AdminFormat.count(change.changedCells)) of \(AdminFormat.count(change.totalCells)) cells would change label."
            transitions = change.transitions.map {
                Transition(from: $0.from, to: $0.to, cells: AdminFormat.count($0.cells))
            }
        }
    }

    let title = "Bands"
    let chrome: AdminChrome
    let current: [Current]
    let rows: [BandsForm.Row]
    let preview: Preview?
    let problems: [String]
    let hasProblems: Bool
    let notice: String?

    init(
        chrome: AdminChrome, current: [StoredBand], form: BandsForm, preview: Preview?, problems: [String],
        notice: String?
    ) {
        self.chrome = chrome
        self.current = current.enumerated().map { index, band in
            Current(label: band.label, range: Self.range(of: index, in: current), position: index)
        }
        rows = form.rows
        self.preview = preview
        self.problems = problems
        hasProblems = !problems.isEmpty
        self.notice = notice
    }

    /// `below 70 dB`, `70–75 dB`, `80 dB and above`.
    static func range(of index: Int, in bands: [StoredBand]) -> String {
        let lower = index > 0 ? bands[index - 1].belowDB : nil
        switch (lower, bands[index].belowDB) {
        case (nil, let upper?): return "below \(AdminFormat.bound(upper)) dB"
        case (let lower?, let upper?): return "\(AdminFormat.bound(lower))–\(AdminFormat.bound(upper)) dB"
        case (let lower?, nil): return "\(AdminFormat.bound(lower)) dB and above"
        case (nil, nil): return "every level"
        }
    }

    /// `quiet < 70, moderate < 75, loud < 80, very loud` for the audit log.
    static func describe(_ bands: [StoredBand]) -> String {
        bands.map { band in band.belowDB.map { "\(band.label) < \(AdminFormat.bound($0))" } ?? band.label }
            .joined(separator: ", ")
    }
}
