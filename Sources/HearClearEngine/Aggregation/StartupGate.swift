/// Opens once (e.g. when migrations are applied); `wait()` returns when it is open, or `false`
/// when it never will: the start was abandoned (a failed migration shuts the server down) or the
/// waiting task was cancelled.
public actor StartupGate {
    private enum State {
        case waiting, open, abandoned
    }

    private var state: State
    private var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
    private var nextWaiter = 0

    /// A gate waiting to be opened, or open from the start with `open: true`.
    public init(open: Bool = false) {
        state = open ? .open : .waiting
    }

    /// Lets every present and future waiter through.
    public func open() {
        guard state == .waiting else { return }
        state = .open
        resumeAll(true)
    }

    /// Turns every present and future waiter away: the gate will not open.
    public func abandon() {
        guard state == .waiting else { return }
        state = .abandoned
        resumeAll(false)
    }

    /// `true` once the gate is open; `false` if it was abandoned or the task cancelled first.
    public func wait() async -> Bool {
        switch state {
        case .open: return true
        case .abandoned: return false
        case .waiting: break
        }
        let id = nextWaiter
        nextWaiter += 1
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(returning: false)
                } else {
                    waiters[id] = continuation
                }
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    private func cancel(_ id: Int) {
        waiters.removeValue(forKey: id)?.resume(returning: false)
    }

    private func resumeAll(_ opened: Bool) {
        let waiting = waiters.values
        waiters.removeAll()
        for waiter in waiting { waiter.resume(returning: opened) }
    }
}
