package inbound

import "time"

// Click is one press of an ask's button, as a chat service delivered it
// (DESIGN 5, "Decisions"). Everything in it came from the service and is
// checked before anything lands.
type Click struct {
	// ID is the service's id of the click (Discord interaction, Slack
	// action trigger, Telegram callback query); for logs only.
	ID string
	// Place is where the question is, as Event.Place is for a reply there.
	Place string
	// Message is the service id of the message the button is on.
	Message string
	// User is the clicker's id at the service; Name how the service shows
	// them ("" shows the id).
	User, Name string
	// Data is the button's data as the relay posted it (relay.ChoiceData).
	Data string
	Time time.Time
}

// VerdictKind says what became of a click.
type VerdictKind int

const (
	// Decided: this click decided the ask; the decision is durable in
	// the inbox.
	Decided VerdictKind = iota
	// AlreadyDecided: the ask was decided before (by this click, replayed
	// or delivered again, or by another); nothing new landed.
	AlreadyDecided
	// Refused: the clicker may not decide; nothing landed.
	Refused
	// Unknown: the click names no ask this daemon posted there.
	Unknown
)

func (k VerdictKind) String() string {
	switch k {
	case Decided:
		return "decided"
	case AlreadyDecided:
		return "already-decided"
	case Refused:
		return "refused"
	}
	return "unknown"
}

// Verdict is what the transport answers a click with.
type Verdict struct {
	Kind VerdictKind
	// Choice decided the ask (Decided, AlreadyDecided): a label of the
	// ask, or bus.ChoiceExpired.
	Choice string
	// By is who decided it, as the service shows them; "" when it
	// expired.
	By string
}

// Answer is the text a transport shows the clicker for v, privately
// where the service allows: one wording for every service.
func (v Verdict) Answer() string {
	switch v.Kind {
	case Decided:
		return "Decided: " + v.Choice
	case AlreadyDecided:
		if v.By == "" {
			return "Already decided: " + v.Choice
		}
		return "Already decided: " + v.Choice + ", by " + v.By
	case Refused:
		return "You may not decide this question."
	}
	return "This question is not known to this bot."
}
