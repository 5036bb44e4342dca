package relay

import (
	"gjc.dev/reconciler/pkg/bus"
)

// Choice is one button of an ask as the service shows it: its label, and
// the data the service hands back when it is clicked.
type Choice struct {
	Data  string
	Label string
}

// choicesOf are ask m's buttons; nil for anything else.
func choicesOf(m bus.Message) []Choice {
	if m.Event != bus.EventAsk {
		return nil
	}
	cs := make([]Choice, len(m.Choices))
	for i, label := range m.Choices {
		cs[i] = Choice{Data: bus.ChoiceData(m.ID, i), Label: label}
	}
	return cs
}

// decoration is what an ask's last part carries besides its text: its
// buttons and, with pingOnAsk, the users it mentions. Not journaled: it is
// a pure function of the message and the options, made again on every
// attempt and lookup.
type decoration struct {
	choices []Choice
	ping    []string
	upload  *Upload // a file part's file
	// verify, set on a file part, proves before a re-post that the file
	// still has the content its attempt recorded (a *fileFailure if not).
	verify func() error
}
