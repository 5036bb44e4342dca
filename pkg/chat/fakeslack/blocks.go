package fakeslack

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// Button is one button of a message's actions blocks, as posted.
type Button struct {
	BlockID  string // the actions block's block_id (given, or made up as Slack does)
	ActionID string
	Value    string
	Text     string // the label, a plain_text object's text
	Style    string // "", "primary" or "danger"
}

// Block Kit's limits as Slack's reference states them (blocks, the
// section block, the actions block, the button element), in characters.
const (
	maxBlocks          = 50
	maxBlockID         = 255
	maxSectionText     = 3000
	maxActionsElements = 25
	maxButtonText      = 75
	maxActionID        = 255
	maxButtonValue     = 2000
	maxButtonURL       = 3000
)

// knownBlockTypes are the block types Slack takes in a message. Only
// section and actions are checked field by field; the others are kept as
// posted.
var knownBlockTypes = map[string]bool{
	"section": true, "actions": true, "divider": true, "header": true, "context": true,
	"image": true, "rich_text": true, "markdown": true, "file": true, "video": true,
}

type textObject struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type blockJSON struct {
	Type     string            `json:"type"`
	BlockID  string            `json:"block_id"`
	Text     *textObject       `json:"text"`
	Fields   []json.RawMessage `json:"fields"`
	Elements []elementJSON     `json:"elements"`
}

type elementJSON struct {
	Type     string      `json:"type"`
	ActionID string      `json:"action_id"`
	Value    string      `json:"value"`
	Style    string      `json:"style"`
	URL      string      `json:"url"`
	Text     *textObject `json:"text"`
}

// blocksError is Slack's answer to blocks it refuses: invalid_blocks_format
// when the parameter is no JSON array of objects, invalid_blocks with one
// message per fault, each naming where it is as a JSON pointer.
type blocksError struct {
	code     string
	messages []string
}

func (e *blocksError) answer() map[string]any {
	resp := fail(e.code)
	if len(e.messages) > 0 {
		resp["response_metadata"] = map[string]any{"messages": e.messages}
	}
	return resp
}

// parseBlocks reads a blocks parameter as Slack checks it and returns the
// blocks as stored (every block with a block_id, and every button with an
// action_id, made up where the client gave none, as Slack does) and the
// buttons among them. An empty array, or none, is no blocks.
func parseBlocks(raw string) (json.RawMessage, []Button, *blocksError) {
	if raw == "" {
		return nil, nil, nil
	}
	var objs []map[string]any
	if err := json.Unmarshal([]byte(raw), &objs); err != nil || slices.ContainsFunc(objs, func(o map[string]any) bool { return o == nil }) {
		return nil, nil, &blocksError{code: "invalid_blocks_format"}
	}
	if len(objs) == 0 {
		return nil, nil, nil
	}
	var (
		msgs    []string
		buttons []Button
		seen    = map[string]bool{}
	)
	bad := func(pointer, format string, args ...any) {
		msgs = append(msgs, fmt.Sprintf("[ERROR] "+format+" [json-pointer:%s]", append(args, pointer)...))
	}
	if len(objs) > maxBlocks {
		bad("/blocks", "no more than %d items allowed", maxBlocks)
	}
	for i, obj := range objs {
		var b blockJSON
		_ = json.Unmarshal(fakeserver.MustMarshal(obj), &b) // a map marshals back; a field of the wrong type stays zero
		at := fmt.Sprintf("/blocks/%d", i)
		switch {
		case !knownBlockTypes[b.Type]:
			bad(at+"/type", "invalid additional property: %s", b.Type)
			continue
		case utf8.RuneCountInString(b.BlockID) > maxBlockID:
			bad(at+"/block_id", "must be less than %d characters", maxBlockID+1)
		case b.BlockID != "" && seen[b.BlockID]:
			bad(at+"/block_id", "duplicate block_id %s", b.BlockID)
		}
		if b.BlockID == "" {
			b.BlockID = fakeserver.RandomHex(3)
			obj["block_id"] = b.BlockID
		}
		seen[b.BlockID] = true
		switch b.Type {
		case "section":
			checkSection(b, at, bad)
		case "actions":
			buttons = append(buttons, checkActions(b, obj, at, bad)...)
		}
	}
	if len(msgs) > 0 {
		return nil, nil, &blocksError{code: "invalid_blocks", messages: msgs}
	}
	return fakeserver.MustMarshal(objs), buttons, nil
}

type badFunc func(pointer, format string, args ...any)

func checkSection(b blockJSON, at string, bad badFunc) {
	switch {
	case b.Text == nil && len(b.Fields) == 0:
		bad(at+"/text", "must provide an object")
	case b.Text == nil:
	case b.Text.Type != "mrkdwn" && b.Text.Type != "plain_text":
		bad(at+"/text/type", "must be one of the provided values: plain_text, mrkdwn")
	case b.Text.Text == "":
		bad(at+"/text/text", "must be more than 0 characters")
	case utf8.RuneCountInString(b.Text.Text) > maxSectionText:
		bad(at+"/text/text", "must be less than %d characters", maxSectionText+1)
	}
}

// checkActions checks an actions block and returns its buttons; obj is
// the block as stored, given the action_ids Slack makes up.
func checkActions(b blockJSON, obj map[string]any, at string, bad badFunc) []Button {
	switch {
	case len(b.Elements) == 0:
		bad(at+"/elements", "must provide at least 1 item")
	case len(b.Elements) > maxActionsElements:
		bad(at+"/elements", "no more than %d items allowed", maxActionsElements)
	}
	stored, _ := obj["elements"].([]any)
	var buttons []Button
	ids := map[string]bool{}
	for j, el := range b.Elements {
		p := fmt.Sprintf("%s/elements/%d", at, j)
		if el.Type != "button" {
			continue // a select, a date picker...: kept as posted, never clicked here
		}
		checkButton(el, p, bad)
		if el.ActionID == "" {
			el.ActionID = fakeserver.RandomHex(3)
			if j < len(stored) {
				if m, ok := stored[j].(map[string]any); ok {
					m["action_id"] = el.ActionID
				}
			}
		}
		if ids[el.ActionID] {
			bad(p+"/action_id", "duplicate action_id %s", el.ActionID)
		}
		ids[el.ActionID] = true
		label := ""
		if el.Text != nil {
			label = el.Text.Text
		}
		buttons = append(buttons, Button{BlockID: b.BlockID, ActionID: el.ActionID, Value: el.Value, Text: label, Style: el.Style})
	}
	return buttons
}

func checkButton(el elementJSON, p string, bad badFunc) {
	switch {
	case el.Text == nil:
		bad(p+"/text", "must provide an object")
	case el.Text.Type != "plain_text":
		bad(p+"/text/type", "must be one of the provided values: plain_text")
	case el.Text.Text == "":
		bad(p+"/text/text", "must be more than 0 characters")
	case utf8.RuneCountInString(el.Text.Text) > maxButtonText:
		bad(p+"/text/text", "must be less than %d characters", maxButtonText+1)
	}
	if utf8.RuneCountInString(el.ActionID) > maxActionID {
		bad(p+"/action_id", "must be less than %d characters", maxActionID+1)
	}
	if utf8.RuneCountInString(el.Value) > maxButtonValue {
		bad(p+"/value", "must be less than %d characters", maxButtonValue+1)
	}
	if utf8.RuneCountInString(el.URL) > maxButtonURL {
		bad(p+"/url", "must be less than %d characters", maxButtonURL+1)
	}
	if el.Style != "" && el.Style != "primary" && el.Style != "danger" {
		bad(p+"/style", "must be one of the provided values: %s", strings.Join([]string{"primary", "danger"}, ", "))
	}
}
