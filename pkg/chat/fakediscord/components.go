package fakediscord

import (
	"encoding/json"
	"unicode/utf8"
)

// Discord's component types and limits for the buttons the fake keeps.
const (
	componentActionRow = 1
	componentButton    = 2

	maxActionRows    = 5   // action rows on one message
	maxRowButtons    = 5   // buttons in one action row
	maxCustomIDRunes = 100 // a button's custom_id
	maxLabelRunes    = 80  // a button's label

	buttonPrimary = 1
	buttonDanger  = 4 // the last style that carries a custom_id (5 is link, 6 premium)
)

// Button is one interactive button of a message, as the fake stores it.
type Button struct {
	CustomID string
	Label    string
	Style    int // 1 primary, 2 secondary, 3 success, 4 danger
	Disabled bool
}

// Buttons are a message's buttons' custom_ids, row by row; nil: none.
func (m Message) Buttons() []string {
	var ids []string
	for _, row := range m.Rows {
		for _, b := range row {
			ids = append(ids, b.CustomID)
		}
	}
	return ids
}

// clickable says whether a user can click the button with customID: it
// is on the message and enabled, or it was when the message was posted
// (a client that has not seen an edit yet still shows it).
func (m Message) clickable(customID string) bool {
	for _, rows := range [][][]Button{m.Rows, m.PostedRows} {
		for _, row := range rows {
			for _, b := range row {
				if b.CustomID == customID {
					return !b.Disabled
				}
			}
		}
	}
	return false
}

// wireComponent is a component as a request carries it.
type wireComponent struct {
	Type       int             `json:"type"`
	Components []wireComponent `json:"components"`
	Style      int             `json:"style"`
	Label      string          `json:"label"`
	CustomID   string          `json:"custom_id"`
	URL        string          `json:"url"`
	Disabled   bool            `json:"disabled"`
}

// parseComponents reads a request's components as Discord validates them
// for a message without the components-v2 flag: at most 5 action rows,
// each of 1 to 5 buttons with a custom_id of 1 to 100 code points, unique
// in the message, and a label of 1 to 80. Absent, null and [] are no
// buttons. ok is false for anything else (Discord's 400 Invalid Form
// Body), including what the fake does not emulate: link and premium
// buttons, emoji-only buttons and select menus.
func parseComponents(raw json.RawMessage) (rows [][]Button, ok bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	var top []wireComponent
	if err := json.Unmarshal(raw, &top); err != nil || len(top) > maxActionRows {
		return nil, false
	}
	seen := map[string]bool{}
	for _, row := range top {
		if row.Type != componentActionRow || len(row.Components) == 0 || len(row.Components) > maxRowButtons {
			return nil, false
		}
		var out []Button
		for _, c := range row.Components {
			if !validButton(c) || seen[c.CustomID] {
				return nil, false
			}
			seen[c.CustomID] = true
			out = append(out, Button{CustomID: c.CustomID, Label: c.Label, Style: c.Style, Disabled: c.Disabled})
		}
		rows = append(rows, out)
	}
	return rows, true
}

// validButton is one non-link button within Discord's limits.
func validButton(c wireComponent) bool {
	id, label := utf8.RuneCountInString(c.CustomID), utf8.RuneCountInString(c.Label)
	return c.Type == componentButton && c.Style >= buttonPrimary && c.Style <= buttonDanger && c.URL == "" &&
		len(c.Components) == 0 && id >= 1 && id <= maxCustomIDRunes && label >= 1 && label <= maxLabelRunes
}

// apiComponents are a message's rows as Discord returns them: each
// component numbered in order (Discord's auto-assigned id).
func apiComponents(rows [][]Button) []any {
	out := []any{}
	n := 0
	for _, row := range rows {
		n++
		r := map[string]any{"type": componentActionRow, "id": n}
		var bs []any
		for _, b := range row {
			n++
			bs = append(bs, map[string]any{"type": componentButton, "id": n, "style": b.Style,
				"label": b.Label, "custom_id": b.CustomID, "disabled": b.Disabled})
		}
		r["components"] = bs
		out = append(out, r)
	}
	return out
}
