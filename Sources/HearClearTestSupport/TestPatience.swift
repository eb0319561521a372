/// How long tests wait for what must happen before they fail naming it. These bound a hang;
/// they are not what a test decides by: a passing test returns as soon as what it waits for
/// has happened, so they are generous (a loaded machine is slow, not wrong).
public enum TestPatience {
    /// ``eventually(within:_:_:)``: the worker judging, a notification heard, a replica replaying.
    public static let event: Duration = .seconds(120)
    /// An application coming up (a cluster made, every migration applied, services), and
    /// stopping after its test. A first start of `hearclear serve` with its embedded PostgreSQL
    /// took over 120 s once while the whole suite and a release build shared 2 cores.
    public static let start: Duration = .seconds(300)
    public static let stop: Duration = .seconds(60)
    /// A `hearclear` command run to its end.
    public static let command: Duration = .seconds(600)
}
