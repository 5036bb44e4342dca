package slack

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	slackapi "github.com/slack-go/slack"

	"gjc.dev/reconciler/pkg/inbound"
)

// payload decodes a block_actions payload as socketmode does.
func payload(t *testing.T, raw string) slackapi.InteractionCallback {
	t.Helper()
	var cb slackapi.InteractionCallback
	if err := json.Unmarshal([]byte(raw), &cb); err != nil {
		t.Fatal(err)
	}
	return cb
}

// clicksOf reads a click from what Slack sends and nothing else: where
// (the thread's root), which message, who, which button, when.
func TestClicksOf(t *testing.T) {
	const root, msg = "1700000000.000100", "1700000005.000200"
	at := time.Unix(1700000007, 300000*1000)
	action := `{"type":"button","action_id":"q01:1","block_id":"b1","value":"q01:1","action_ts":"1700000007.300000"}`
	wrap := func(container, message, actions string) string {
		return `{"type":"block_actions","trigger_id":"tr1","user":{"id":"U1","name":"alice"},"channel":{"id":"C1"},` +
			`"container":` + container + `,"message":` + message + `,"actions":[` + actions + `]}`
	}
	inThread := `{"type":"message","channel_id":"C1","message_ts":"` + msg + `","thread_ts":"` + root + `"}`
	reply := `{"ts":"` + msg + `","thread_ts":"` + root + `"}`
	want := inbound.Click{ID: "tr1", Place: root, Message: msg, User: "U1", Name: "alice", Data: "q01:1", Time: at}
	for _, tc := range []struct {
		name string
		raw  string
		want []inbound.Click
	}{
		{"a click in a thread", wrap(inThread, reply, action), []inbound.Click{want}},
		{"the thread from the message when the container has none",
			wrap(`{"type":"message","channel_id":"C1","message_ts":"`+msg+`"}`, reply, action), []inbound.Click{want}},
		{"a root message is its own place",
			wrap(`{"type":"message","channel_id":"C1","message_ts":"`+root+`"}`, `{"ts":"`+root+`"}`, action),
			[]inbound.Click{{ID: "tr1", Place: root, Message: root, User: "U1", Name: "alice", Data: "q01:1", Time: at}}},
		{"the data from action_id when value is not an ask's",
			wrap(inThread, reply, `{"type":"button","action_id":"q01:1","block_id":"b1","value":"x","action_ts":"1700000007.300000"}`), []inbound.Click{want}},
		{"data no ask carries", wrap(inThread, reply, `{"type":"button","action_id":"other","block_id":"b1","value":"other"}`), nil},
		{"too many choices", wrap(inThread, reply, `{"type":"button","action_id":"q01:9","block_id":"b1","value":"q01:9"}`), nil},
		{"another channel", wrap(strings.ReplaceAll(inThread, "C1", "C2"), reply, action), nil},
		{"no message", wrap(`{"type":"view"}`, `{}`, action), nil},
		{"not block_actions", strings.Replace(wrap(inThread, reply, action), "block_actions", "message_action", 1), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := clicksOf(payload(t, tc.raw), "C1")
			if len(got) != len(tc.want) {
				t.Fatalf("clicks %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if !got[i].Time.Equal(tc.want[i].Time) || withTime(got[i], tc.want[i].Time) != tc.want[i] {
					t.Fatalf("click %+v, want %+v", got[i], tc.want[i])
				}
			}
		})
	}
}

func withTime(c inbound.Click, at time.Time) inbound.Click { c.Time = at; return c }

// The clicker hears of every verdict but the one that decided, whose
// answer is the ack (and the question's edit), in the one wording.
func TestAnswerOf(t *testing.T) {
	for _, tc := range []struct {
		v    inbound.Verdict
		text string
		send bool
	}{
		{inbound.Verdict{Kind: inbound.Decided, Choice: "Approve"}, "", false},
		{inbound.Verdict{Kind: inbound.AlreadyDecided, Choice: "Approve", By: "alice"}, "Already decided: Approve, by alice", true},
		{inbound.Verdict{Kind: inbound.AlreadyDecided, Choice: "expired"}, "Already decided: expired", true},
		{inbound.Verdict{Kind: inbound.Refused}, "You may not decide this question.", true},
		{inbound.Verdict{Kind: inbound.Unknown}, "This question is not known to this bot.", true},
	} {
		if text, send := answerOf(tc.v); text != tc.text || send != tc.send {
			t.Errorf("answerOf(%+v) = %q %v, want %q %v", tc.v, text, send, tc.text, tc.send)
		}
	}
}
