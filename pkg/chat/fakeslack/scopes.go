package fakeslack

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// The OAuth scopes the fake grants, as an app installed with every scope the
// relay asks for (docs/quickstart.md) holds them: a bot token has botScopes,
// an app-level token appScopes. SetScopeGranted takes one away.
var (
	botScopes = []string{
		"chat:write", "channels:read", "channels:history", "groups:read", "groups:history",
		"im:read", "im:history", "mpim:read", "mpim:history", "reactions:write",
		"files:read", "files:write",
	}
	appScopes = []string{"connections:write"}
)

// SetScopeGranted takes a scope from the app, or gives it back. While it is
// withheld, every answer's X-OAuth-Scopes leaves it out, and the methods that
// need it answer missing_scope, naming it as needed (connections:write is the
// app-level token's, so apps.connections.open is the method that needs it).
func (s *Server) SetScopeGranted(scope string, granted bool) {
	s.core.Toggle(s.withheld, scope, !granted)
}

// neededScope is the one scope a call needs: for the conversations methods
// the one of the channel's kind, as Slack asks a public channel's reader for
// channels:read and a private one's for groups:read. "" when none.
func neededScope(method string, form url.Values) string {
	accepted := methods[method].scopes
	if len(accepted) <= 1 {
		return strings.Join(accepted, "")
	}
	prefix := map[string]string{"channel": "channels:", "group": "groups:", "im": "im:"}[channelType(form.Get("channel"))]
	for _, sc := range accepted {
		if strings.HasPrefix(sc, prefix) {
			return sc
		}
	}
	return accepted[0]
}

// grantedLocked are a token's scopes, in a stable order.
func (s *Server) grantedLocked(token string) []string {
	all := botScopes
	if strings.HasPrefix(token, "xapp-") {
		all = appScopes
	}
	return slices.DeleteFunc(slices.Clone(all), func(sc string) bool { return s.withheld[sc] })
}

// scopeErrLocked is Slack's missing_scope answer when the token lacks the
// scope the call needs, nil when it has it.
func (s *Server) scopeErrLocked(method, token string, form url.Values) map[string]any {
	need := neededScope(method, form)
	granted := s.grantedLocked(token)
	if need == "" || slices.Contains(granted, need) {
		return nil
	}
	resp := fail("missing_scope")
	resp["needed"], resp["provided"] = need, strings.Join(granted, ",")
	return resp
}

// setScopeHeaders puts on an answer to an accepted token what Slack puts on
// every one: the token's scopes (X-OAuth-Scopes) and those the method takes
// (X-Accepted-OAuth-Scopes), each comma-separated.
func (s *Server) setScopeHeadersLocked(h http.Header, method, token string) {
	h.Set("X-OAuth-Scopes", strings.Join(s.grantedLocked(token), ","))
	if accepted := methods[method].scopes; len(accepted) > 0 {
		h.Set("X-Accepted-OAuth-Scopes", strings.Join(accepted, ","))
	}
}
