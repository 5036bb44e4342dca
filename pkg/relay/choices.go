package relay

import (
	"strconv"
	"strings"

	"gjc.dev/reconciler/pkg/bus"
)

// Choice is one button of an ask as the service shows it: its label, and
// the data the service hands back when it is clicked.
type Choice struct {
	Data  string
	Label string
}

// ChoiceData is the data of ask askID's button i: "<ask id>:<i>". An ask
// id is at most bus.MaxAskIDLen bytes and i one digit, so it fits every
// service's limit (Telegram's callback_data: 64 bytes).
func ChoiceData(askID string, i int) string { return askID + ":" + strconv.Itoa(i) }

// ParseChoiceData is ChoiceData's inverse; ok is false for data no ask
// button carries (anything a click can bring is untrusted).
func ParseChoiceData(data string) (askID string, i int, ok bool) {
	askID, n, found := strings.Cut(data, ":")
	if !found || len(n) != 1 || n[0] < '0' || n[0] >= '0'+bus.MaxChoices || !bus.ValidID(askID) || len(askID) > bus.MaxAskIDLen {
		return "", 0, false
	}
	return askID, int(n[0] - '0'), true
}

// choicesOf are ask m's buttons; nil for anything else.
func choicesOf(m bus.Message) []Choice {
	if m.Event != bus.EventAsk {
		return nil
	}
	cs := make([]Choice, len(m.Choices))
	for i, label := range m.Choices {
		cs[i] = Choice{Data: ChoiceData(m.ID, i), Label: label}
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
}
