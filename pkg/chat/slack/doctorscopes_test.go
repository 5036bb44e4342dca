package slack

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	slackapi "github.com/slack-go/slack"
)

// The scope lines of each kind of conversation: the relay's six, in a
// stable order, and each withheld in turn fails its own line alone.
func TestScopeLines(t *testing.T) {
	for _, tc := range []struct {
		kind channelKind
		want []string
	}{
		{kindPublic, []string{"chat:write", "channels:read", "channels:history", "reactions:write", "files:write", "files:read"}},
		{kindPrivate, []string{"chat:write", "groups:read", "groups:history", "reactions:write", "files:write", "files:read"}},
		{kindIM, []string{"chat:write", "im:read", "im:history", "reactions:write", "files:write", "files:read"}},
		{kindMPIM, []string{"chat:write", "mpim:read", "mpim:history", "reactions:write", "files:write", "files:read"}},
	} {
		t.Run(tc.kind.String(), func(t *testing.T) {
			all := map[string]bool{}
			var want []string
			for _, sc := range tc.want {
				all[sc] = true
				want = append(want, "scope "+sc)
			}
			var got []string
			for _, l := range scopeLines(all, tc.kind, true) {
				got = append(got, l.Check)
				if !l.OK {
					t.Errorf("%s failed with every scope granted: %s", l.Check, l.Says)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("lines %q, want %q", got, want)
			}
			for i, withheld := range tc.want {
				granted := map[string]bool{}
				for _, sc := range tc.want {
					granted[sc] = sc != withheld
				}
				for j, l := range scopeLines(granted, tc.kind, true) {
					if l.OK == (i == j) {
						t.Errorf("%s withheld: %s ok=%v", withheld, l.Check, l.OK)
					}
					if !l.OK && !strings.Contains(l.Says, "add "+withheld) {
						t.Errorf("%s withheld: %q does not say to add it", withheld, l.Says)
					}
				}
			}
		})
	}
}

// Judged for a public channel without knowing the channel's kind, a
// missing channels: scope's fix names its groups: form too.
func TestScopeLinesOfAnUnknownKind(t *testing.T) {
	lines := scopeLines(map[string]bool{"chat:write": true, "reactions:write": true}, kindPublic, false)
	for _, l := range lines[1:3] {
		alt := "groups:" + strings.TrimPrefix(l.Check, "scope channels:")
		if l.OK || !strings.Contains(l.Says, alt) {
			t.Errorf("%s: %q does not name %s", l.Check, l.Says, alt)
		}
	}
}

// The channel's kind: as conversations.info says; after its missing_scope,
// the read scope it named, or the one of public and private the token
// lacks; else not known.
func TestChannelKindFor(t *testing.T) {
	missing := func(needed string) error {
		return slackapi.SlackErrorResponse{Err: "missing_scope", Needed: needed}
	}
	both := map[string]bool{"channels:read": true, "groups:read": true}
	publicOnly := map[string]bool{"channels:read": true}
	privateOnly := map[string]bool{"groups:read": true}
	info := func(c slackapi.Channel) *slackapi.Channel { return &c }
	var private, im slackapi.Channel
	private.IsPrivate = true
	im.IsIM, im.IsPrivate = true, true
	for _, tc := range []struct {
		name    string
		ch      *slackapi.Channel
		err     error
		granted map[string]bool
		kind    channelKind
		known   bool
	}{
		{"public, answered", info(slackapi.Channel{}), nil, both, kindPublic, true},
		{"private, answered", info(private), nil, both, kindPrivate, true},
		{"a DM, answered", info(im), nil, both, kindIM, true},
		{"needed groups:read", nil, missing("groups:read"), publicOnly, kindPrivate, true},
		{"needed channels:read", nil, missing("channels:read"), privateOnly, kindPublic, true},
		{"needed a list, groups:read lacking", nil, missing("channels:read,groups:read"), publicOnly, kindPrivate, true},
		{"needed a list, channels:read lacking", nil, missing(""), privateOnly, kindPublic, true},
		{"both lacking", nil, missing(""), map[string]bool{}, kindPublic, false},
		{"another error", nil, slackapi.SlackErrorResponse{Err: "channel_not_found"}, both, kindPublic, false},
		{"no answer", nil, errors.New("connection refused"), both, kindPublic, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind, known := channelKindFor(tc.ch, tc.err, tc.granted)
			if kind != tc.kind || known != tc.known {
				t.Errorf("kind %v known %v, want %v %v", kind, known, tc.kind, tc.known)
			}
		})
	}
}

// X-OAuth-Scopes is a comma-separated list, spaces or not; a missing
// header is told from an empty one.
func TestGrantedScopes(t *testing.T) {
	h := http.Header{}
	if _, ok := grantedScopes(h); ok {
		t.Error("no header read as scopes")
	}
	h.Set("X-OAuth-Scopes", "chat:write, channels:read,reactions:write")
	got, ok := grantedScopes(h)
	if !ok || len(got) != 3 || !got["channels:read"] || !got["reactions:write"] {
		t.Errorf("read %v, %v", got, ok)
	}
	h.Set("X-OAuth-Scopes", "")
	if got, ok := grantedScopes(h); !ok || len(got) != 0 {
		t.Errorf("empty header read %v, %v", got, ok)
	}
}
