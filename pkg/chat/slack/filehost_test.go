package slack

import (
	"testing"

	"gjc.dev/reconciler/pkg/spec"
)

// The bot token goes to Slack's own file host only: https://files.slack.com,
// or with apiURL set, that URL's scheme and host and nothing else.
func TestFileHost(t *testing.T) {
	poster := func(apiURL string) *Poster {
		p, err := NewPoster(&spec.SlackConfig{BotToken: spec.NewSecret("xoxb-1"), ChannelID: "C1", APIURL: apiURL}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	slack, fake := poster(""), poster("http://127.0.0.1:8080")
	for _, tc := range []struct {
		p   *Poster
		url string
		ok  bool
	}{
		{slack, "https://files.slack.com/files-pri/T1-F1/download/a.png", true},
		{slack, "https://FILES.slack.com/files-pri/T1-F1/a.png", true},
		{slack, "http://files.slack.com/files-pri/T1-F1/a.png", false},
		{slack, "https://files.slack.com.example.org/a.png", false},
		{slack, "https://files.slack.com:8443/a.png", false},
		{slack, "https://slack.com/files-pri/a.png", false},
		{slack, "https://example.org/files.slack.com/a.png", false},
		{slack, "https://user@files.slack.com@example.org/a.png", false},
		{slack, "not a url\x7f", false},
		{fake, "http://127.0.0.1:8080/files-pri/T1-F1/download/a.png", true},
		{fake, "https://127.0.0.1:8080/files-pri/a.png", false},
		{fake, "http://127.0.0.1:8081/files-pri/a.png", false},
		{fake, "https://files.slack.com/files-pri/T1-F1/a.png", false},
	} {
		if err := tc.p.fileHost(tc.url); (err == nil) != tc.ok {
			t.Errorf("fileHost(%q) = %v, want ok %v", tc.url, err, tc.ok)
		}
	}
}
