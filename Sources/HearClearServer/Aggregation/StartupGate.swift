/// Opens once (e.g. when migrations are applied); `wait()` returns when it is open.
public actor StartupGate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public init(open: Bool = false) {
        isOpen = open
    }

    /// Lets every present and future waiter through.
    public func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }

    /// Returns once the gate is open.
    public func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }
}
