package chat

import "testing"

func TestRedactURLs(t *testing.T) {
	cases := map[string]string{
		`dial wss://wss-primary.slack.com/link/?ticket=SECRET&app_id=A1: refused`: `dial wss://wss-primary.slack.com/link/: refused`,
		`Get "https://u:SECRET@127.0.0.1:80/api/v9/gateway?v=9": EOF`:             `Get "https://127.0.0.1:80/api/v9/gateway": EOF`,
		`no url here`: `no url here`,
	}
	for in, want := range cases {
		if got := redactURLs(in); got != want {
			t.Errorf("redactURLs(%q) = %q, want %q", in, got, want)
		}
	}
}
