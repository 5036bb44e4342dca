package ownership

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"gjc.dev/reconciler/pkg/spec"
)

// HeartbeatTTL is how old a live owner's heartbeat may be before the owner
// counts as hung (the reference's HEARTBEAT_TTL_MS). Daemons renew every
// 5 s, so four beats may be missed.
const HeartbeatTTL = 20 * time.Second

// bootSlack absorbs the rounding of the boot time to whole seconds, which
// can differ by one between readers. A record from a previous boot started
// at least a reboot's duration before this boot, far more than this.
const bootSlack = time.Second

// Desired is what the record is judged against: the object's provider
// (the record's kind), its identity fingerprint and its generation.
type Desired struct {
	Kind       string
	Identity   string
	Generation spec.Generation
}

// Class is the outcome of Classify (DESIGN section 4). The zero value is
// no class, so an unset Classification never reads as "absent, spawn".
type Class int

const (
	ClassAbsent      Class = iota + 1 // no state.json
	ClassStopped                      // its owner is gone or released
	ClassMalformed                    // cannot be trusted: touch nothing
	ClassForeign                      // another provider's owner: touch nothing
	ClassDrifted                      // identity differs: stop and replace
	ClassReplaceable                  // generation behind or legacy: stop and replace
	ClassCompatible                   // generation equal: attach (replace if hung)
	ClassNewer                        // generation ahead: attach, never signal
)

var classNames = [...]string{"", "absent", "stopped", "malformed", "foreign", "drifted", "replaceable", "compatible", "newer"}

func (c Class) String() string {
	if c > 0 && int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// Health is how a live, signalable owner is doing. It is HealthNone for
// absent, stopped, malformed and foreign records and for an owner whose
// incarnation cannot be proved.
type Health int

const (
	HealthNone          Health = iota
	HealthHealthy              // transport healthy, heartbeat fresh
	HealthStarting             // heartbeat fresh, transport not yet connected
	HealthHung                 // heartbeat older than HeartbeatTTL
	HealthTransportDown        // heartbeat fresh, transport lost (transportError set): reconnecting
)

var healthNames = [...]string{"none", "healthy", "starting", "hung", "transport-down"}

func (h Health) String() string {
	if h >= 0 && int(h) < len(healthNames) {
		return healthNames[h]
	}
	return fmt.Sprintf("Health(%d)", int(h))
}

// Classification is the judgement of one record.
type Classification struct {
	Class  Class
	Health Health
	// Signalable: the record names a live process whose incarnation is
	// proved equal, is not released nor from a previous boot, and its kind
	// is the desired provider (the reference's "signalable matching
	// owner"). Whether it should be signalled is the class's business:
	// a newer owner never is.
	Signalable bool
	// AmbiguouslyLive: a live PID that is not proved gone (dead or reused)
	// and is not signalable: never overwrite it, never signal it, spawn
	// nothing over it (Acquire would refuse it too). Always true for a
	// malformed record, of which nothing is proved; also true for a
	// released owner that has not exited yet (wait for its exit), a live
	// foreign owner, and a live PID whose incarnation cannot be read.
	AmbiguouslyLive bool
	Reason          string // CamelCase, for status conditions
	Message         string // one line for humans
}

// Classify judges rec against d given the facts a store gathered about it
// (GatherFacts); it is pure. The first rule that applies wins: absent; the exact
// legacy "unavailable" record (stopped if its PID is dead, else malformed);
// malformed; stopped (released, PID dead, PID reused, or started before
// this boot); foreign (kind differs); drifted (identity differs); then by
// generation: replaceable (lower, or absent), compatible (equal), newer.
func Classify(rec Record, d Desired, facts Facts) Classification {
	switch {
	case !rec.Present:
		return Classification{Class: ClassAbsent, Reason: ReasonNoOwner, Message: "no state.json: nothing owns this daemon"}
	case rec.Legacy && rec.State != nil:
		return classifyLegacy(rec.State, facts.Process)
	case rec.Malformed != nil || rec.State == nil:
		msg := "record cannot be trusted"
		if rec.Malformed != nil {
			msg = rec.Malformed.Error()
		}
		return Classification{
			Class: ClassMalformed, AmbiguouslyLive: true,
			Reason: malformedReason(rec.Malformed), Message: OneLine(msg + "; touching nothing"),
		}
	}
	s := rec.State
	// Proved the owner only if its command line says it is this name's
	// daemon, running as this record's owner: a PID and incarnation alone
	// are what a copied record or one naming any process would show too.
	f := facts.Process
	boot, prevBoot := facts.Boot.Time, facts.Boot.FromPreviousBoot(s)
	c := Classification{Signalable: s.StoppedAt == nil && !prevBoot && f.Equal && s.Kind == d.Kind}
	c.AmbiguouslyLive = !f.Dead() && !c.Signalable
	who := fmt.Sprintf("owner %s (pid %d)", s.OwnerID, s.PID)

	if stopped := classifyStopped(s, f, boot, prevBoot, who, &c); stopped {
		c.Message = OneLine(c.Message)
		return c
	}
	switch {
	case s.Kind != d.Kind:
		c.Class, c.Reason = ClassForeign, ReasonForeignOwner
		c.Message = OneLine(fmt.Sprintf("%s is a %s daemon, desired %s; touching nothing", who, s.Kind, d.Kind))
		return c
	case s.Identity != d.Identity:
		c.Class, c.Reason = ClassDrifted, ReasonIdentityDrift
		c.Message = fmt.Sprintf("%s runs identity %s, desired %s", who, s.Identity, d.Identity)
	default:
		c.Class, c.Reason, c.Message = byGeneration(who, s.Generation, d.Generation)
	}
	if !c.Signalable {
		// Only an unprovable incarnation is left: the stopped and foreign
		// cases returned above.
		c.Reason = ReasonOwnerUnverifiable
		what := "its incarnation cannot be proved"
		if f.Unexaminable {
			what = "it cannot be proved to be this daemon"
		}
		c.Message = OneLine(c.Message + fmt.Sprintf("; pid %d is live but %s (%v): refusing to signal or replace it", s.PID, what, f.Err))
		return c
	}
	c.Health = health(s, facts.Now)
	age := heartbeatAge(s, facts.Now)
	switch c.Health {
	case HealthHealthy:
		c.Message += fmt.Sprintf("; healthy, heartbeat %s ago", age)
	case HealthStarting:
		c.Message += fmt.Sprintf("; starting (transport not yet connected), heartbeat %s ago", age)
	case HealthTransportDown:
		c.Message += fmt.Sprintf("; reconnecting (%s), heartbeat %s ago", s.TransportError, age)
	case HealthHung:
		if age < 0 {
			c.Message += fmt.Sprintf("; hung: its heartbeat is %s in the future, more than the %s of clock skew allowed", -age, MaxClockSkew)
		} else {
			c.Message += fmt.Sprintf("; hung: last heartbeat %s ago, over %s", age, HeartbeatTTL)
		}
	}
	if c.Class == ClassCompatible {
		c.Reason = healthReasons[c.Health]
	}
	c.Message = OneLine(c.Message)
	return c
}

// OneLine makes a message safe for one status line: the record's strings
// (a transport error from a remote server, say) may hold control
// characters.
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

var healthReasons = map[Health]string{
	HealthHealthy:       ReasonOwnerHealthy,
	HealthStarting:      ReasonOwnerStarting,
	HealthHung:          ReasonOwnerHung,
	HealthTransportDown: ReasonTransportUnhealthy,
}

// classifyStopped fills c and reports true when the record's owner is
// stopped: released, dead, its PID reused, or from a previous boot.
func classifyStopped(s *State, f ProcessFacts, boot time.Time, prevBoot bool, who string, c *Classification) bool {
	switch {
	case s.StoppedAt != nil:
		c.Reason = ReasonOwnerReleased
		c.Message = fmt.Sprintf("%s released at %s", who, time.UnixMilli(*s.StoppedAt).UTC().Format(time.RFC3339))
		if s.Terminated != nil {
			c.Message += fmt.Sprintf(" (terminated: %s: %s)", s.Terminated.Reason, s.Terminated.Message)
		}
		if c.AmbiguouslyLive {
			c.Reason = ReasonOwnerExiting
			c.Message += fmt.Sprintf("; pid %d has not exited yet", s.PID)
		}
	case !f.Alive:
		c.Reason = ReasonOwnerExited
		c.Message = who + " has exited"
	case f.Differs:
		c.Reason = ReasonPIDReused
		c.Message = fmt.Sprintf("%s has exited; pid %d now names another process (incarnation %s, recorded %s)", who, s.PID, f.Current, s.Incarnation)
	case f.NotDaemon != nil:
		c.Reason = ReasonNotThisDaemon
		c.Message = fmt.Sprintf("%s is gone: pid %d is live but %s; the record is stale and that process is never signalled", who, s.PID, f.NotDaemon.Why)
	case prevBoot:
		c.Reason = ReasonPreviousBoot
		c.Message = fmt.Sprintf("%s started at %s, before this boot at %s", who,
			time.UnixMilli(s.StartedAt).UTC().Format(time.RFC3339), boot.UTC().Format(time.RFC3339))
		if c.AmbiguouslyLive {
			c.Message += fmt.Sprintf("; a live process holds pid %d and is not proved another, so nothing may replace it", s.PID)
		}
	default:
		return false
	}
	c.Class = ClassStopped
	return true
}

func classifyLegacy(s *State, f ProcessFacts) Classification {
	if !f.Alive {
		return Classification{
			Class: ClassStopped, Reason: ReasonLegacyOwnerExited,
			Message: OneLine(fmt.Sprintf("legacy record (incarnation %q) of owner %s: pid %d has exited",
				LegacyIncarnation, s.OwnerID, s.PID)),
		}
	}
	return Classification{
		Class: ClassMalformed, AmbiguouslyLive: true, Reason: ReasonMalformedOwnerRecord,
		Message: OneLine(fmt.Sprintf("legacy record (incarnation %q) of owner %s names live pid %d, "+
			"which cannot be proved another process; touching nothing", LegacyIncarnation, s.OwnerID, s.PID)),
	}
}

// MaxClockSkew is how far ahead of now a heartbeat may be and still count
// as fresh: clocks of one machine agree far better, and a heartbeat from
// further ahead (a year, say) would keep a hung owner "healthy" forever.
const MaxClockSkew = time.Minute

// health judges a signalable owner by its heartbeat and transport. A
// heartbeat more than MaxClockSkew in the future is not fresh (the
// reference took any future heartbeat as fresh). An owner not connected yet
// is starting while it reports no transport error, and reconnecting once
// it does.
func health(s *State, now time.Time) Health {
	switch {
	case now.UnixMilli()-s.HeartbeatAt > HeartbeatTTL.Milliseconds(),
		s.HeartbeatAt-now.UnixMilli() > MaxClockSkew.Milliseconds():
		return HealthHung
	case s.TransportHealthy:
		return HealthHealthy
	case s.TransportError != "":
		return HealthTransportDown
	}
	return HealthStarting
}

func heartbeatAge(s *State, now time.Time) time.Duration {
	return (time.Duration(now.UnixMilli()-s.HeartbeatAt) * time.Millisecond).Round(100 * time.Millisecond)
}

// malformedReason is MalformedOwnerRecord, or UnsafeOwnerDirectory when it
// is the directory, not the record, that cannot be trusted.
func malformedReason(err error) string {
	if errors.Is(err, ErrStoreUnreachable) {
		return ReasonStoreUnreachable
	}
	if errors.Is(err, ErrUnsafeDirectory) {
		return ReasonUnsafeDirectory
	}
	return ReasonMalformedOwnerRecord
}

// byGeneration judges a record of the desired kind and identity by its
// generation: a legacy record (none) or an older one is replaceable, the
// same compatible, a newer one never touched.
func byGeneration(who string, recorded spec.OptGeneration, desired spec.Generation) (Class, string, string) {
	g, ok := recorded.Get()
	switch {
	case !ok:
		return ClassReplaceable, ReasonGenerationBehind, fmt.Sprintf("%s runs a legacy record without generation, desired %d", who, desired)
	case g < desired:
		return ClassReplaceable, ReasonGenerationBehind, fmt.Sprintf("%s runs generation %d, desired %d", who, g, desired)
	case g == desired:
		return ClassCompatible, "", fmt.Sprintf("%s at generation %d", who, desired)
	}
	return ClassNewer, ReasonGenerationAhead, fmt.Sprintf("%s runs generation %d, ahead of desired %d; never signalled or downgraded", who, g, desired)
}
