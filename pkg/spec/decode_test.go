package spec

import (
	"strings"
	"testing"
)

func TestDecodeErrors(t *testing.T) {
	meta := header + "metadata: {name: a}\n"
	cases := []struct {
		name, doc string
		want      []string // each must appear in the rendered errors
	}{
		{"unknown field", meta + "spec:\n  provider: discord\n  discrod: {}\n", []string{`spec.discrod: Forbidden: unknown field`}},
		{"unknown nested field", meta + "spec:\n  provider: discord\n  discord: {botTokn: x}\n", []string{`spec.discord.botTokn: Forbidden: unknown field`}},
		{"wrong case is unknown", meta + "spec:\n  Provider: discord\n", []string{`spec.Provider: Forbidden: unknown field`}},
		{"generation string", meta + "spec: {provider: discord, generation: \"7\"}\n", []string{`spec.generation: Invalid value: must be an integer, not string`}},
		{"generation fractional", meta + "spec: {provider: discord, generation: 1.5}\n", []string{`spec.generation: Invalid value: must be an integer, not number`}},
		{"duration number", meta + "spec: {provider: discord, readyTimeout: 5}\n", []string{`spec.readyTimeout: Invalid value: "5": must be a duration string`}},
		{"duration words", meta + "spec: {provider: discord, killTimeout: 5 secs}\n", []string{`spec.killTimeout: Invalid value: "5 secs": must be a duration`}},
		{"redact string", meta + "spec: {provider: discord, redact: \"no\"}\n", []string{`spec.redact: Invalid value: must be a boolean, not string`}},
		{"duplicate key", meta + "spec:\n  provider: discord\n  provider: slack\n", []string{`not valid YAML: line 6: key "provider" already set in map`}},
		{"wrong apiVersion", "apiVersion: v1\nkind: ChatDaemon\nmetadata: {name: a}\nspec: {}\n", []string{`apiVersion: Unsupported value: "v1"`}},
		{"wrong kind", "apiVersion: reconciler.gjc.dev/v1alpha1\nkind: Pod\nmetadata: {name: a}\nspec: {}\n", []string{`kind: Unsupported value: "Pod"`}},
		{"not a mapping", "- a\n- b\n", []string{`must be a mapping`}},
		{"broken yaml", meta + "spec: {provider: [\n", []string{`not valid YAML`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := Decode([]byte(tc.doc))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if len(docs) != 1 {
				t.Fatalf("got %d documents, want 1", len(docs))
			}
			if len(docs[0].Errs) == 0 {
				t.Fatalf("document accepted, want errors %q", tc.want)
			}
			got := issueStrings(fieldIssues("f.yaml", 0, docs[0].Errs))
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("errors %q do not contain %q", got, w)
				}
			}
		})
	}
}

func TestDecodeMultiDocument(t *testing.T) {
	src := "# leading comment\n---\n" + discordDoc("a", "") + "---\n# only a comment\n---\n" + slackDoc("b") + "---\n"
	docs, err := Decode([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 {
		t.Fatalf("got %d documents, want 2 (empty documents skipped)", len(docs))
	}
	for i, want := range []string{"a", "b"} {
		if docs[i].Index != i || docs[i].Object == nil || docs[i].Object.Name != want {
			t.Errorf("doc %d = %+v, want object %q at index %d", i, docs[i], want, i)
		}
	}
}

func TestDecodeYAMLLineIsFileLine(t *testing.T) {
	src := discordDoc("a", "") + "---\n" + header + "metadata: {name: b}\nspec:\n  provider: slack\n  provider: slack\n"
	docs, _ := Decode([]byte(src))
	if len(docs) != 2 || docs[1].Object != nil {
		t.Fatalf("want the second document rejected, got %+v", docs)
	}
	// The duplicate key is on line 19 of the file (line 6 of its document).
	if got := docs[1].Errs.ToAggregate().Error(); !strings.Contains(got, "line 19:") {
		t.Errorf("error %q does not name line 19 of the file", got)
	}
}
