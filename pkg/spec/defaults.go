package spec

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Defaults of DESIGN section 3.
const (
	DefaultReadyTimeout    = 8 * time.Second
	DefaultGracefulTimeout = 8 * time.Second
	DefaultKillTimeout     = 3 * time.Second
)

// Default fills every optional field that is unset. Generation defaults to 0 so
// that a first spec needs no bookkeeping; raising it later rolls the daemon.
func Default(d *ChatDaemon) {
	s := &d.Spec
	if s.Generation == nil {
		var zero Generation
		s.Generation = &zero
	}
	if s.State == "" {
		s.State = StateRunning
	}
	if s.Verbosity == "" {
		s.Verbosity = VerbosityLean
	}
	defaultDuration(&s.ReadyTimeout, DefaultReadyTimeout)
	defaultDuration(&s.GracefulTimeout, DefaultGracefulTimeout)
	defaultDuration(&s.KillTimeout, DefaultKillTimeout)
	defaultDuration(&s.InboundSweep, DefaultInboundSweep)
}

func defaultDuration(p **metav1.Duration, d time.Duration) {
	if *p == nil {
		*p = &metav1.Duration{Duration: d}
	}
}
