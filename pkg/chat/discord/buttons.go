package discord

import (
	"slices"
	"strings"

	"gjc.dev/reconciler/pkg/relay"
)

// Discord's component types and button styles.
const (
	componentActionRow = 1
	componentButton    = 2
	buttonPrimary      = 1
	buttonSecondary    = 2
)

// component is a message component as Discord takes it: an action row,
// or a button in one.
type component struct {
	Type       int         `json:"type"`
	Components []component `json:"components,omitempty"`
	Style      int         `json:"style,omitempty"`
	Label      string      `json:"label,omitempty"`
	CustomID   string      `json:"custom_id,omitempty"`
}

// noComponents is what every edit sends: an edited message carries no
// buttons (an ask is edited only to show its outcome).
var noComponents = []component{}

// buttonsOf are a part's choices as one action row: the first choice
// primary, the others secondary. nil for a part without choices. An ask
// has at most five choices (bus.MaxChoices), Discord's limit for a row;
// a label is at most 40 code points and the data 58 bytes, within
// Discord's 80 and 100.
func buttonsOf(choices []relay.Choice) []component {
	if len(choices) == 0 {
		return nil
	}
	row := component{Type: componentActionRow}
	for i, c := range choices {
		style := buttonSecondary
		if i == 0 {
			style = buttonPrimary
		}
		row.Components = append(row.Components, component{Type: componentButton, Style: style, Label: c.Label, CustomID: c.Data})
	}
	return []component{row}
}

// customIDs are the buttons' custom_ids of components, in order; nil when none.
func customIDs(cs []component) []string {
	var ids []string
	for _, row := range cs {
		for _, b := range row.Components {
			ids = append(ids, b.CustomID)
		}
	}
	return ids
}

// sameButtons says whether a message's components are the part's buttons:
// a lookup takes a message by content only when they are, so a plain
// message never stands for an ask's part, nor the other way round.
func sameButtons(got []component, choices []relay.Choice) bool {
	return slices.Equal(customIDs(got), customIDs(buttonsOf(choices)))
}

// rendered is a part as Post sends it and Lookup recognizes it.
type rendered struct {
	content  string
	mentions allowedMentions
	buttons  []component
}

// renderPart is the one way a part becomes a message. Agent text never
// pings anyone: allowed_mentions parses nothing. Only a part with Ping
// (an ask's last, with pingOnAsk) mentions its users, on a first line of
// <@id>s, each allowed by id. The relay cuts such a part short by room
// for each mention; should that not suffice (more users than half the
// limit holds), a mention that would not fit within PartLimit with the
// text is left out, so the text is never cut.
func renderPart(p relay.Part) rendered {
	r := rendered{content: p.Text, mentions: noMentions, buttons: buttonsOf(p.Choices)}
	room := PartLimit - len([]rune(p.Text)) - 1 // the newline after the mentions
	var line []string
	var users []string
	for _, id := range p.Ping {
		m := "<@" + id + ">"
		cost := len(m)
		if len(line) > 0 {
			cost++ // the space between
		}
		if slices.Contains(users, id) {
			continue
		}
		if cost > room {
			break
		}
		room -= cost
		line = append(line, m)
		users = append(users, id)
	}
	if len(users) > 0 {
		r.content = strings.Join(line, " ") + "\n" + p.Text
		r.mentions = allowedMentions{Parse: []string{}, Users: users}
	}
	return r
}
