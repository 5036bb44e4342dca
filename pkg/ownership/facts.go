package ownership

import "time"

// Facts are what a verdict on one record needs to know about the machine,
// as values a store gathered in one look (GatherFacts for this machine).
// Classify judges them and looks nothing up itself, so a verdict can be
// replayed from a table, and another backend (a fleet's) can supply its
// own facts.
type Facts struct {
	// Process is what is known of the process the record names.
	Process ProcessFacts
	Boot    BootFacts
	Now     time.Time
}

// ProcessFacts is what the machine says about a recorded PID and
// incarnation. The zero value is a process proved dead.
type ProcessFacts struct {
	Alive bool // live, or liveness unknown: never treated as dead
	// Differs: a live PID whose current incarnation is valid and not the
	// recorded one, which is valid too. The recorded process is proved
	// gone (PID reused). A recorded incarnation without authority
	// ("unavailable") can never be proved different.
	Differs bool
	// Equal: a live PID whose current incarnation is the recorded one and,
	// where a claim was checked, whose command line proves it the claimed
	// daemon.
	Equal bool
	// Current is the PID's incarnation now, when read.
	Current string
	Err     error // why liveness, the incarnation or the command line is unknown, if it is
	// NotDaemon: the recorded process lives on, but its command line proves
	// it is not the daemon the record or lock claims (a copied record, one
	// naming any other process): as gone as a reused PID for this name.
	NotDaemon *NotDaemonError
	// Unexaminable: equal incarnation, but the command line could not be
	// read or judged, so it is neither proved this daemon nor another
	// process.
	Unexaminable bool
}

// Dead reports whether the recorded process is proved gone, or proved not
// to be the claimed daemon.
func (f ProcessFacts) Dead() bool { return !f.Alive || f.Differs || f.NotDaemon != nil }

// BootFacts identify this boot: an incarnation (a start time since boot)
// is only unique within one.
type BootFacts struct {
	Time      time.Time
	TimeKnown bool   // false when the boot time could not be read
	TimeErr   error  // why, when it could not
	ID        string // "" where the machine has none or it could not be read
	// LeaseBound: the store proves owners by leases that no reboot
	// survives (a fleet's etcd), so its records may come from other
	// machines with other boots, and the boot rule neither applies nor is
	// needed: a rebooted machine's owners lost their leases.
	LeaseBound bool
}

// FromPreviousBoot applies the boot rule: a record whose process started
// before this boot is dead whatever its PID names now. A record with a boot
// ID is judged by it, which no clock step can move; one without is judged
// by startedAt against the boot time. If neither is known the rule cannot
// apply; liveness and incarnation still decide.
func (b BootFacts) FromPreviousBoot(s *State) bool {
	if b.LeaseBound {
		return false
	}
	if s.BootID != "" && b.ID != "" {
		return s.BootID != b.ID
	}
	if !b.TimeKnown {
		return false
	}
	return s.StartedAt < b.Time.Add(-bootSlack).UnixMilli()
}

// Known reports whether the boot rule can be applied to s at all: without
// it an incarnation is no proof across a reboot.
func (b BootFacts) Known(s *State) bool {
	return b.LeaseBound || b.TimeKnown || (s.BootID != "" && b.ID != "")
}
