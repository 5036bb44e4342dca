package discord

import (
	"encoding/json"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/relay"
)

func TestRenderPart(t *testing.T) {
	t.Parallel()
	choices := []relay.Choice{{Data: "a:0", Label: "Approve"}, {Data: "a:1", Label: "Deny"}}
	long := strings.Repeat("é", PartLimit-10)
	for _, tc := range []struct {
		name     string
		part     relay.Part
		content  string
		mentions string
		buttons  string
	}{
		{"plain text pings no one", relay.Part{Text: "hi <@1> @everyone"}, "hi <@1> @everyone", `{"parse":[]}`, `null`},
		{"an ask without ping", relay.Part{Text: "May I?", Choices: choices}, "May I?", `{"parse":[]}`,
			`[{"type":1,"components":[{"type":2,"style":1,"label":"Approve","custom_id":"a:0"},{"type":2,"style":2,"label":"Deny","custom_id":"a:1"}]}]`},
		{"an ask that pings, each user once", relay.Part{Text: "May I?", Choices: choices[:1], Ping: []string{"11", "22", "11"}},
			"<@11> <@22>\nMay I?", `{"parse":[],"users":["11","22"]}`,
			`[{"type":1,"components":[{"type":2,"style":1,"label":"Approve","custom_id":"a:0"}]}]`},
		{"mentions that do not fit are left out, the text is whole", relay.Part{Text: long, Ping: []string{"1234", "5"}},
			"<@1234>\n" + long, `{"parse":[],"users":["1234"]}`, `null`},
		{"no mention fits", relay.Part{Text: long + "12345", Ping: []string{"1234"}}, long + "12345", `{"parse":[]}`, `null`},
	} {
		r := renderPart(tc.part)
		m, _ := json.Marshal(r.mentions)
		b, _ := json.Marshal(r.buttons)
		if r.content != tc.content || string(m) != tc.mentions || string(b) != tc.buttons {
			t.Errorf("%s: content %q mentions %s buttons %s", tc.name, r.content, m, b)
		}
		if n := len([]rune(r.content)); n > PartLimit {
			t.Errorf("%s: %d code points, over Discord's %d", tc.name, n, PartLimit)
		}
	}
}

func TestSameButtons(t *testing.T) {
	t.Parallel()
	choices := []relay.Choice{{Data: "a:0", Label: "Approve"}, {Data: "a:1", Label: "Deny"}}
	for _, tc := range []struct {
		name    string
		got     []component
		choices []relay.Choice
		want    bool
	}{
		{"none and none", nil, nil, true},
		{"the part's buttons", buttonsOf(choices), choices, true},
		{"buttons where the part has none", buttonsOf(choices), nil, false},
		{"none where the part has buttons", nil, choices, false},
		{"another ask's buttons", buttonsOf([]relay.Choice{{Data: "b:0"}, {Data: "b:1"}}), choices, false},
	} {
		if got := sameButtons(tc.got, tc.choices); got != tc.want {
			t.Errorf("%s: sameButtons = %v", tc.name, got)
		}
	}
}
