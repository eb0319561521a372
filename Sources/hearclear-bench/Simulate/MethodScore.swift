/// Mean absolute error and share of correct labels of one method over the evaluated cells.
///
/// Every method is scored on the same cells. A cell a method gives no answer for (the oracle with
/// no clean check-in, the 2013 server with nothing in its own clock's hour) adds nothing to the
/// MAE but counts as a wrong label: a reader got no right answer there.
struct MethodScore {
    var name: String
    /// Absolute error by cell key, for the cells this method answered.
    var errors: [String: Double] = [:]
    /// Cells whose label was right.
    var correct: Set<String> = []
    var missing = 0

    init(name: String) {
        self.name = name
    }

    mutating func add(cell: String, estimate: Double?, truth: Double, label: (Double) -> String) {
        guard let estimate else {
            missing += 1
            return
        }
        errors[cell] = abs(estimate - truth)
        if label(estimate) == label(truth) { correct.insert(cell) }
    }

    var cells: Int { errors.count + missing }

    var meanAbsoluteError: Double { Self.mean(Array(errors.values)) }

    /// Correct labels over all evaluated cells, answered or not.
    var labelShare: Double { cells == 0 ? .nan : Double(correct.count) / Double(cells) }

    /// MAE and label share of this method over `cells` only (all of which it must have answered).
    func restricted(to cells: Set<String>) -> (meanAbsoluteError: Double, labelShare: Double) {
        let chosen = cells.compactMap { errors[$0] }
        let right = cells.intersection(correct).count
        return (Self.mean(chosen), cells.isEmpty ? .nan : Double(right) / Double(cells.count))
    }

    private static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count)
    }
}
