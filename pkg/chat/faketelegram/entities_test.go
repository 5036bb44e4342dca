package faketelegram

import (
	"slices"
	"testing"
)

func TestFindEntities(t *testing.T) {
	type e = Entity
	cases := []struct {
		text string
		want []Entity
	}{
		{"hi @alice_w", []e{{Type: "mention", Offset: 3, Length: 8}}},
		{"@ab and @abc", nil}, // under 4 characters
		{"@gif", []e{{Type: "mention", Offset: 0, Length: 4}}}, // but for the service's few
		{"mail a@example.com", []e{{Type: "email", Offset: 5, Length: 13}}},
		{"x@alice_w", nil},      // after a word character
		{"@\u2060alice_w", nil}, // a word joiner breaks it
		{"é@alice_w", nil},      // a letter is a word character
		{"(@alice_w)", []e{{Type: "mention", Offset: 1, Length: 8}}},
		{"@alice_wé", nil}, // followed by a letter
		{"😀 @alice_w", []e{{Type: "mention", Offset: 3, Length: 8}}}, // UTF-16 offsets
		{"#tag #123 #a#b", []e{{Type: "hashtag", Offset: 0, Length: 4}}},
		{"$USD $usd", []e{{Type: "cashtag", Offset: 0, Length: 4}}},
		{"run /start@jobs_bot now", []e{{Type: "bot_command", Offset: 4, Length: 15}}},
		{"see /usr/bin", nil},
		{"go to https://example.org/a?b=c.", []e{{Type: "url", Offset: 6, Length: 25}}},
		{"www.example.org", []e{{Type: "url", Offset: 0, Length: 15}}},
		{"plain words", nil},
		{"see README.md, v1.2.3 e.g. x", []e{{Type: "url", Offset: 4, Length: 9}}},
		{"example.com/a?b. done.It works", []e{{Type: "url", Offset: 0, Length: 15}}},
		{"main.go and index.html", nil},
		{"DONE.IT", []e{{Type: "url", Offset: 0, Length: 7}}},
		{"https://x.org/README.md", []e{{Type: "url", Offset: 0, Length: 23}}},
	}
	for _, c := range cases {
		if got := findEntities(c.text); !slices.Equal(got, c.want) {
			t.Errorf("%q: %+v, want %+v", c.text, got, c.want)
		}
	}
}

func TestMergeEntitiesKeepsThoseSent(t *testing.T) {
	sent := []Entity{{Type: "bold", Offset: 0, Length: 5}}
	found := []Entity{{Type: "mention", Offset: 2, Length: 6}, {Type: "hashtag", Offset: 9, Length: 3}}
	want := []Entity{sent[0], found[1]}
	if got := mergeEntities(sent, found); !slices.Equal(got, want) {
		t.Fatalf("%+v, want %+v", got, want)
	}
}
