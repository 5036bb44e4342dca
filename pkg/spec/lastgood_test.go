package spec

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// saveOf is lastgood.json as a loader of source saves it after one Load.
func saveOf(t *testing.T, source string) []byte {
	t.Helper()
	res := NewLoader(source).Load()
	if !res.Valid() {
		t.Fatalf("saving an invalid source: %s", issueStrings(res.Errors))
	}
	data, _, err := EncodeLastGood(res)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// lastgood.json holds references, never what they resolve to: a restart
// must not turn a token kept in the environment or a 0600 file into one
// kept on disk. An object with an inline token is left out entirely.
func TestEncodeLastGoodHoldsReferencesOnly(t *testing.T) {
	setTokens(t)
	dir := t.TempDir()
	const fileToken, inlineToken = "discord-from-file-token-9", "discord-inline-token-8"
	tok := writeFile(t, dir, "token", fileToken+"\n")
	writeFile(t, dir, "a.yaml", discordDoc("envbot", "")+"---\n"+fileTokenDoc("filebot", tok))
	writeFile(t, dir, "b.yaml", slackDoc("slack")+"---\n"+strings.Replace(discordDoc("inline", ""), "{fromEnv: TEST_DISCORD_TOKEN}", "{value: "+inlineToken+"}", 1))
	res := NewLoader(dir).Load()
	if !res.Valid() {
		t.Fatalf("%s", issueStrings(res.Errors))
	}
	data, omitted, err := EncodeLastGood(res)
	if err != nil {
		t.Fatal(err)
	}
	for i, secret := range []string{os.Getenv("TEST_DISCORD_TOKEN"), os.Getenv("TEST_SLACK_BOT"), os.Getenv("TEST_SLACK_APP"), fileToken, inlineToken} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("lastgood.json holds token %d of 5 (content not shown)", i+1)
		}
	}
	for _, ref := range []string{`"fromEnv": "TEST_DISCORD_TOKEN"`, `"fromFile": "` + tok + `"`, `"fromEnv": "TEST_SLACK_APP"`} {
		if !bytes.Contains(bytes.ReplaceAll(data, []byte(`":"`), []byte(`": "`)), []byte(ref)) {
			t.Errorf("lastgood.json lacks the reference %s", ref)
		}
	}
	if !slices.Equal(omitted, []string{"inline"}) {
		t.Errorf("omitted = %v, want the inline-token object", omitted)
	}
	lg, err := DecodeLastGood(data)
	if err != nil {
		t.Fatalf("decoding what was encoded: %v", err)
	}
	var got []string
	for _, objs := range lg.Files {
		for _, o := range objs {
			got = append(got, o.Object.Name)
		}
	}
	slices.Sort(got)
	if want := []string{"envbot", "filebot", "slack"}; !slices.Equal(got, want) || lg.Source != dir {
		t.Errorf("round trip: names %v source %s, want %v %s", got, lg.Source, want, dir)
	}
	again, _, _ := EncodeLastGood(res)
	if !bytes.Equal(again, data) {
		t.Error("two encodings of one result differ: every load would rewrite the file")
	}
}

// lastgood.json is untrusted: anything this project would not have written
// makes the whole file unusable, and the message names where, never a value.
func TestDecodeLastGoodRefuses(t *testing.T) {
	setTokens(t)
	dir := t.TempDir()
	p := writeFile(t, dir, "daemons.yaml", discordDoc("discord", "")+"---\n"+slackDoc("slack"))
	good := saveOf(t, p)
	var f map[string]any
	if err := json.Unmarshal(good, &f); err != nil {
		t.Fatal(err)
	}
	// mutate edits a copy of the good file's JSON.
	mutate := func(edit func(f map[string]any)) []byte {
		var c map[string]any
		_ = json.Unmarshal(good, &c)
		edit(c)
		data, _ := json.Marshal(c)
		return data
	}
	obj := func(c map[string]any, i int) map[string]any {
		return c["files"].([]any)[0].(map[string]any)["objects"].([]any)[i].(map[string]any)
	}
	spec := func(c map[string]any, i int) map[string]any {
		return obj(c, i)["object"].(map[string]any)["spec"].(map[string]any)
	}
	const planted = "planted-token-value-77"
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"not JSON", "not the JSON", []byte("{")},
		{"empty", "not the JSON", nil},
		{"unknown field", "not the JSON", mutate(func(c map[string]any) { c["extra"] = 1 })},
		{"version", "version 2, want 1", mutate(func(c map[string]any) { c["version"] = 2 })},
		{"relative source", "source: must be an absolute", mutate(func(c map[string]any) { c["source"] = "daemons.yaml" })},
		{"file outside the source", "files[0].file: not a file of the source", mutate(func(c map[string]any) {
			c["files"].([]any)[0].(map[string]any)["file"] = "/etc/passwd"
		})},
		{"file twice", "files[1].file: " + p + " appears twice", mutate(func(c map[string]any) {
			c["files"] = append(c["files"].([]any), c["files"].([]any)[0])
		})},
		{"negative index", "files[0].objects[0]: index: must be >= 0", mutate(func(c map[string]any) { obj(c, 0)["index"] = -1 })},
		{"index twice", "files[0].objects[1].index: 0 appears twice", mutate(func(c map[string]any) { obj(c, 1)["index"] = 0 })},
		{"name twice", `files[0].objects[1]: name "discord" is also files[0].objects[0]'s`, mutate(func(c map[string]any) {
			obj(c, 1)["object"].(map[string]any)["metadata"].(map[string]any)["name"] = "discord"
		})},
		{"invalid object", "files[0].objects[0]: object: spec.generation: FieldValueInvalid", mutate(func(c map[string]any) { spec(c, 0)["generation"] = -1 })},
		{"bad name", "metadata.name: FieldValueInvalid", mutate(func(c map[string]any) {
			obj(c, 0)["object"].(map[string]any)["metadata"].(map[string]any)["name"] = "../x"
		})},
		{"unknown object field", "spec.bogus: FieldValueForbidden", mutate(func(c map[string]any) { spec(c, 0)["bogus"] = planted })},
		{"wrong type", "object: spec.generation: FieldValueTypeInvalid", mutate(func(c map[string]any) { spec(c, 0)["generation"] = planted })},
		{"inline token", "inline token", mutate(func(c map[string]any) {
			spec(c, 0)["discord"].(map[string]any)["botToken"] = map[string]any{"value": planted}
		})},
		{"missing object", "object: missing", mutate(func(c map[string]any) { delete(obj(c, 0), "object") })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeLastGood(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), planted) {
				t.Errorf("the message quotes the file's content: %v", err)
			}
		})
	}
	if _, err := DecodeLastGood(good); err != nil {
		t.Fatalf("the unmodified file: %v", err)
	}
}

// breakFile makes a spec file fail validation.
func breakFile(t *testing.T, p string) {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(data, "  bogus: 1\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A loader handed lastgood.json at its start keeps, for each file that
// fails now, that file's saved objects; every other file is read fresh.
func TestLoaderRestoresLastGood(t *testing.T) {
	type want struct {
		names      []string // desired after the first load
		discordGen Generation
		disk       []string // files kept from lastgood.json (base names)
		nothing    []string // broken files with nothing kept (base names)
		problem    string   // in LastGoodProblem
		errs       string   // in the errors
	}
	for _, tc := range []struct {
		name string
		// change edits the source after the save; it is dir (a directory
		// source) or dir/daemons.yaml (a file source).
		dirSource bool
		change    func(t *testing.T, src string)
		other     bool // the save is of another source
		want      want
	}{
		{name: "file valid: read fresh", change: func(t *testing.T, src string) {
			writeFile(t, filepath.Dir(src), "daemons.yaml", strings.Replace(discordDoc("discord", ""), "generation: 1", "generation: 5", 1))
		}, want: want{names: []string{"discord"}, discordGen: 5}},
		{name: "file broken: saved objects", change: func(t *testing.T, src string) { breakFile(t, src) },
			want: want{names: []string{"discord", "slack"}, discordGen: 1, disk: []string{"daemons.yaml"}, errs: "spec.bogus"}},
		{name: "file gone: saved objects", change: func(t *testing.T, src string) { _ = os.Remove(src) },
			want: want{names: []string{"discord", "slack"}, discordGen: 1, disk: []string{"daemons.yaml"}, errs: "no such file"}},
		{name: "file broken, token unset now: that object left out", change: func(t *testing.T, src string) {
			breakFile(t, src)
			t.Setenv("TEST_SLACK_APP", "")
		}, want: want{names: []string{"discord"}, discordGen: 1, disk: []string{"daemons.yaml"},
			errs: "last known good from lastgood.json: Invalid value: \"TEST_SLACK_APP\": environment variable is empty; its daemon is neither started nor stopped"}},
		{name: "saved for another source: not used", other: true, change: func(t *testing.T, src string) { breakFile(t, src) },
			want: want{nothing: []string{"daemons.yaml"}, problem: "saved for the spec source"}},
		{name: "dir: broken file saved, the other fresh", dirSource: true, change: func(t *testing.T, src string) {
			writeFile(t, src, "a.yaml", strings.Replace(discordDoc("discord", ""), "generation: 1", "generation: 6", 1))
			breakFile(t, filepath.Join(src, "b.yaml"))
		}, want: want{names: []string{"discord", "slack"}, discordGen: 6, disk: []string{"b.yaml"}}},
		{name: "dir: removed file is not restored, new broken one keeps nothing", dirSource: true, change: func(t *testing.T, src string) {
			_ = os.Remove(filepath.Join(src, "b.yaml"))
			writeFile(t, src, "c.yaml", "not: [valid")
		}, want: want{names: []string{"discord"}, discordGen: 1, nothing: []string{"c.yaml"}}},
		{name: "dir gone: every saved file kept", dirSource: true, change: func(t *testing.T, src string) { _ = os.RemoveAll(src) },
			want: want{names: []string{"discord", "slack"}, discordGen: 1, disk: []string{"a.yaml", "b.yaml"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setTokens(t)
			dir := t.TempDir()
			src := filepath.Join(dir, "daemons.yaml")
			if tc.dirSource {
				src = filepath.Join(dir, "spec")
				if err := os.Mkdir(src, 0o700); err != nil {
					t.Fatal(err)
				}
				writeFile(t, src, "a.yaml", discordDoc("discord", ""))
				writeFile(t, src, "b.yaml", slackDoc("slack"))
			} else {
				writeFile(t, dir, "daemons.yaml", discordDoc("discord", "")+"---\n"+slackDoc("slack"))
			}
			saved := src
			if tc.other {
				saved = filepath.Join(t.TempDir(), "daemons.yaml")
				writeFile(t, filepath.Dir(saved), "daemons.yaml", discordDoc("discord", ""))
			}
			lg, err := DecodeLastGood(saveOf(t, saved))
			if err != nil {
				t.Fatal(err)
			}
			tc.change(t, src)
			l := NewLoader(src)
			if used := l.UseLastGood(lg); used == tc.other {
				t.Fatalf("UseLastGood = %v", used)
			}
			res := l.Load()
			w := tc.want
			if !slices.Equal(res.Names(), w.names) {
				t.Errorf("names = %v, want %v (errors: %s)", res.Names(), w.names, issueStrings(res.Errors))
			}
			if d := res.Lookup("discord"); d != nil && d.Config.Generation != w.discordGen {
				t.Errorf("discord at generation %d, want %d", d.Config.Generation, w.discordGen)
			}
			k := res.Keeping()
			if got := bases(k.Disk); !slices.Equal(got, w.disk) {
				t.Errorf("kept from disk: %v, want %v", got, w.disk)
			}
			if got := bases(k.Nothing); !slices.Equal(got, w.nothing) {
				t.Errorf("nothing kept for: %v, want %v", got, w.nothing)
			}
			if len(k.Memory) > 0 {
				t.Errorf("kept in memory: %v, though this loader saw nothing validate", k.Memory)
			}
			if !strings.Contains(res.LastGoodProblem, w.problem) || (w.problem == "") != (res.LastGoodProblem == "") {
				t.Errorf("LastGoodProblem = %q, want %q", res.LastGoodProblem, w.problem)
			}
			if !strings.Contains(issueStrings(res.Errors), w.errs) {
				t.Errorf("errors do not contain %q:\n%s", w.errs, issueStrings(res.Errors))
			}
			// What the result keeps for saving again is what was saved,
			// unresolvable objects included: a variable unset for one
			// start must not erase them.
			for _, kept := range res.Kept {
				if slices.Contains(w.disk, filepath.Base(kept.File)) && len(kept.Objects) != len(lg.Files[kept.File]) {
					t.Errorf("%s: keeps %d objects to save, lastgood.json had %d", kept.File, len(kept.Objects), len(lg.Files[kept.File]))
				}
			}
		})
	}
}

// Restored objects last until their file validates; then the file is read.
func TestLoaderRestoredUntilValid(t *testing.T) {
	setTokens(t)
	dir := t.TempDir()
	p := writeFile(t, dir, "daemons.yaml", discordDoc("discord", ""))
	lg, err := DecodeLastGood(saveOf(t, p))
	if err != nil {
		t.Fatal(err)
	}
	breakFile(t, p)
	l := NewLoader(p)
	l.UseLastGood(lg)
	if res := l.Load(); !res.Sources[0].FromDisk || !slices.Equal(res.Names(), []string{"discord"}) {
		t.Fatalf("broken at start: %+v names %v", res.Sources, res.Names())
	}
	writeFile(t, dir, "daemons.yaml", slackDoc("slack"))
	res := l.Load()
	if !res.Valid() || res.Sources[0].FromDisk || !slices.Equal(res.Names(), []string{"slack"}) {
		t.Fatalf("fixed: valid=%v %+v names %v", res.Valid(), res.Sources, res.Names())
	}
	breakFile(t, p)
	if res := l.Load(); res.Sources[0].FromDisk || !res.Sources[0].LastKnownGood || !slices.Equal(res.Names(), []string{"slack"}) {
		t.Fatalf("broken again: %+v names %v, want slack kept in memory", res.Sources, res.Names())
	}
}

func bases(files []string) []string {
	var out []string
	for _, f := range files {
		out = append(out, filepath.Base(f))
	}
	return out
}
