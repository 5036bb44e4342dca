package spec

// Daemon is one desired daemon: a defaulted, validated object with its secrets
// resolved, and where it was declared.
type Daemon struct {
	Object   *ChatDaemon
	Config   Config
	Identity string
	File     string
	Index    int
	// EnvNames are the variables this daemon's secrets come from; a spawned
	// daemon must not inherit them.
	EnvNames []string
}

// Name is the daemon's metadata.name.
func (d *Daemon) Name() string { return d.Config.Name }
