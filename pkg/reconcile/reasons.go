package reconcile

// Reasons the reconciler itself gives. The ownership package names the
// rest, and the reconciler uses its constants where it means the same
// (GenerationAhead, TransportUnhealthy); a daemon's terminated reasons are
// daemonproto's.
const (
	ReasonReady            = "Ready"
	ReasonStopped          = "Stopped"
	ReasonUnmanaged        = "Unmanaged"
	ReasonPruned           = "Pruned"
	ReasonPruneDeferred    = "PruneDeferred"
	ReasonCrashLoopBackOff = "CrashLoopBackOff"
	ReasonNotReady         = "NotReady"
	ReasonNotProvenDead    = "NotProvenDead"
	ReasonStopFailed       = "StopFailed"
	ReasonSpawnFailed      = "SpawnFailed"
	ReasonUnsafeDaemonDir  = "UnsafeDaemonDir"
)
