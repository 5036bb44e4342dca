package slack

import "testing"

func TestAPIBase(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080":             "http://127.0.0.1:8080/api/",
		"http://127.0.0.1:8080/":            "http://127.0.0.1:8080/api/",
		"http://127.0.0.1:8080/api":         "http://127.0.0.1:8080/api/",
		"http://127.0.0.1:8080/api/":        "http://127.0.0.1:8080/api/",
		"https://proxy.example/slack":       "https://proxy.example/slack/api/",
		"https://proxy.example/slack/api//": "https://proxy.example/slack/api/",
	} {
		if got := apiBase(in); got != want {
			t.Errorf("apiBase(%q) = %q, want %q", in, got, want)
		}
	}
}
