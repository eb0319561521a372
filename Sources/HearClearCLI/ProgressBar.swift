import Foundation

/// A one-line progress bar on standard error when it is a terminal; otherwise a line every 10 %.
public struct ProgressBar: Sendable {
    public let total: Int
    public let label: String
    let isTerminal = isatty(STDERR_FILENO) == 1
    let width = 30

    public init(total: Int, label: String) {
        self.total = total
        self.label = label
    }

    public func update(_ done: Int) {
        guard total > 0 else { return }
        if isTerminal {
            let filled = min(width, width * done / total)
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            write("\r[\(bar)] \(done)/\(total) \(label)")
        } else if done == total || (done * 10 / total) != ((done - 1) * 10 / total) {
            write("\(done)/\(total) \(label)\n")
        }
    }

    public func finish(_ done: Int) {
        if isTerminal, total > 0 { write("\r[\(String(repeating: "#", count: width))] \(done)/\(total) \(label)\n") }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
