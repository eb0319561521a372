import Foundation

/// A one-line progress bar on standard error when it is a terminal; otherwise a line every 10 %.
struct ProgressBar {
    let total: Int
    let label: String
    let isTerminal = isatty(STDERR_FILENO) == 1
    let width = 30

    func update(_ done: Int) {
        guard total > 0 else { return }
        if isTerminal {
            let filled = min(width, width * done / total)
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            write("\r[\(bar)] \(done)/\(total) \(label)")
        } else if done == total || (done * 10 / total) != ((done - 1) * 10 / total) {
            write("\(done)/\(total) \(label)\n")
        }
    }

    func finish(_ done: Int) {
        if isTerminal, total > 0 { write("\r[\(String(repeating: "#", count: width))] \(done)/\(total) \(label)\n") }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
