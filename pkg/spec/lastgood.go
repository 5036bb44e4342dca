package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
)

// LastGood is what lastgood.json holds: the objects each file of one spec
// source last validated with, as written (secret references, never what
// they resolve to). A process that starts on a broken file keeps what the
// file last declared, resolving the references then.
type LastGood struct {
	// Source is the spec source, absolute: a file, or a directory.
	Source string
	// Files maps each file of the source (absolute) to its objects.
	Files map[string][]SavedObject
}

// SavedObject is one object as its file last validated with it.
type SavedObject struct {
	// Index is the object's document index in its file, for messages.
	Index  int
	Object *ChatDaemon
}

// KeptSource is one file's last valid objects, as a Result keeps them.
type KeptSource struct {
	File    string // absolute
	Objects []SavedObject
}

// lastGoodVersion is the format of lastgood.json.
const lastGoodVersion = 1

type lastGoodFile struct {
	Version int             `json:"version"`
	Source  string          `json:"source"`
	Files   []lastGoodEntry `json:"files"`
}

type lastGoodEntry struct {
	File    string        `json:"file"`
	Objects []savedObject `json:"objects"`
}

type savedObject struct {
	Index  int             `json:"index"`
	Object json.RawMessage `json:"object"`
}

// EncodeLastGood is lastgood.json for a result: every file's last valid
// objects. An object whose token is written inline (value) is left out,
// and named in omitted: its value is a token, and lastgood.json holds
// none; a broken file keeps it only in the memory of the process that read
// it. The encoding is deterministic, so equal content is equal bytes.
func EncodeLastGood(res *Result) (data []byte, omitted []string, err error) {
	f := lastGoodFile{Version: lastGoodVersion, Source: res.Source, Files: []lastGoodEntry{}}
	for _, k := range res.Kept {
		e := lastGoodEntry{File: k.File, Objects: []savedObject{}}
		for _, o := range k.Objects {
			if hasInlineSecret(o.Object) {
				omitted = append(omitted, o.Object.Name)
				continue
			}
			js, err := json.Marshal(o.Object)
			if err != nil {
				return nil, nil, fmt.Errorf("encoding %s[%d]: %w", k.File, o.Index, err)
			}
			e.Objects = append(e.Objects, savedObject{Index: o.Index, Object: js})
		}
		f.Files = append(f.Files, e)
	}
	data, err = json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	return append(data, '\n'), omitted, nil
}

// DecodeLastGood reads lastgood.json. The file is untrusted: every object
// is decoded and validated as strictly as a spec file's, an inline token
// (which this project never writes there) is refused, and so is a file
// outside the source, a repeated file, index or name. Any problem makes
// the whole file unusable: guessing at part of it could start or stop the
// wrong daemon. Messages name the entry and the field, never a value.
func DecodeLastGood(data []byte) (*LastGood, error) {
	var f lastGoodFile
	strict, err := sigsjson.UnmarshalStrict(data, &f)
	if err != nil {
		return nil, errors.New("not the JSON this reconciler writes")
	}
	if len(strict) > 0 {
		return nil, fmt.Errorf("not the JSON this reconciler writes: %v", strict[0])
	}
	if f.Version != lastGoodVersion {
		return nil, fmt.Errorf("version %d, want %d", f.Version, lastGoodVersion)
	}
	if !filepath.IsAbs(f.Source) || filepath.Clean(f.Source) != f.Source {
		return nil, errors.New("source: must be an absolute, clean path")
	}
	lg := &LastGood{Source: f.Source, Files: map[string][]SavedObject{}}
	names := map[string]string{}
	for i, e := range f.Files {
		where := fmt.Sprintf("files[%d]", i)
		if e.File != f.Source && filepath.Dir(e.File) != f.Source || filepath.Clean(e.File) != e.File {
			return nil, fmt.Errorf("%s.file: not a file of the source %s", where, f.Source)
		}
		if _, dup := lg.Files[e.File]; dup {
			return nil, fmt.Errorf("%s.file: %s appears twice", where, e.File)
		}
		objs := []SavedObject{}
		for j, so := range e.Objects {
			at := fmt.Sprintf("%s.objects[%d]", where, j)
			obj, err := decodeSaved(so)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", at, err)
			}
			if slices.ContainsFunc(objs, func(o SavedObject) bool { return o.Index == so.Index }) {
				return nil, fmt.Errorf("%s.index: %d appears twice", at, so.Index)
			}
			if prev, dup := names[obj.Name]; dup {
				return nil, fmt.Errorf("%s: name %q is also %s's", at, obj.Name, prev)
			}
			names[obj.Name] = at
			objs = append(objs, SavedObject{Index: so.Index, Object: obj})
		}
		lg.Files[e.File] = objs
	}
	return lg, nil
}

func decodeSaved(so savedObject) (*ChatDaemon, error) {
	if so.Index < 0 {
		return nil, errors.New("index: must be >= 0")
	}
	if raw := bytes.TrimSpace(so.Object); len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, errors.New("object: missing")
	}
	obj, errs := decodeJSON(so.Object)
	if obj != nil {
		Default(obj)
		errs = append(errs, Validate(obj)...)
	}
	if len(errs) > 0 {
		return nil, errors.New("object: " + withoutValues(errs))
	}
	if hasInlineSecret(obj) {
		return nil, errors.New("object: holds an inline token (value), which lastgood.json never does")
	}
	return obj, nil
}

// withoutValues renders field errors by path and type only: the file is
// untrusted, and what it holds in a wrong place may be a token.
func withoutValues(errs field.ErrorList) string {
	var parts []string
	for _, e := range errs {
		if e.Field == "" || e.Field == "<nil>" {
			parts = append(parts, string(e.Type))
			continue
		}
		parts = append(parts, e.Field+": "+string(e.Type))
	}
	return strings.Join(parts, "; ")
}

func hasInlineSecret(o *ChatDaemon) bool {
	s := o.Spec
	return s.Discord != nil && s.Discord.BotToken.Value != "" ||
		s.Slack != nil && (s.Slack.BotToken.Value != "" || s.Slack.AppToken.Value != "") ||
		s.Telegram != nil && s.Telegram.BotToken.Value != ""
}

// UseLastGood hands the loader lastgood.json's objects for its first Load:
// a file of the source that fails then keeps them, as if this process had
// read the file when it last validated; a file that reads valid replaces
// them, as always. It is false, and nothing is used, when lg was saved for
// another spec source.
func (l *Loader) UseLastGood(lg *LastGood) bool {
	if lg.Source != l.abs {
		l.savedProblem = fmt.Sprintf("it was saved for the spec source %s, not %s", lg.Source, l.abs)
		return false
	}
	l.saved = lg
	return true
}

// LastGoodUnusable records why lastgood.json could not be used, so that a
// result with a broken file that keeps nothing says why.
func (l *Loader) LastGoodUnusable(why string) { l.savedProblem = why }

// restoreSaved seeds, once, the files of the source from lastgood.json.
// listed says whether the source could be listed: then a saved file that
// is no longer listed was removed while no reconciler watched, and is
// not restored (a valid listing removes objects); when the source itself
// is gone, every saved file stands, failing to read, with its objects.
func (l *Loader) restoreSaved(listed bool) {
	saved := l.saved
	l.saved = nil
	for _, file := range slices.Sorted(maps.Keys(saved.Files)) {
		p, ok := l.loaderPath(file, listed)
		if !ok {
			continue
		}
		objs := saved.Files[file]
		fs := &fileState{path: p, abs: file, hasGood: true, fromDisk: true, goodSaved: objs}
		fs.good, fs.restoreErrs = resolveSaved(p, objs, l.lookupEnv)
		l.files[p] = fs
		if !listed {
			l.order = append(l.order, p)
		}
	}
	sort.Strings(l.order)
}

// loaderPath is how the loader names a saved file, and whether it is one
// of the source's now.
func (l *Loader) loaderPath(file string, listed bool) (string, bool) {
	if listed {
		for _, p := range l.order {
			if absPath(p) == file {
				return p, true
			}
		}
		return "", false
	}
	if file == l.abs {
		return l.path, true
	}
	return filepath.Join(l.path, filepath.Base(file)), true
}

// resolveSaved resolves the saved objects' secret references now. An
// object whose references do not resolve (a variable no longer set) is
// left out and reported: without its token its identity is unknown, so its
// daemon is neither started nor stopped, and nothing is pruned meanwhile.
func resolveSaved(file string, objs []SavedObject, lookupEnv func(string) (string, bool)) ([]*Daemon, []Issue) {
	var out []*Daemon
	var issues []Issue
	dir := specDir(file)
	for _, so := range objs {
		obj := so.Object
		res, errs := resolveConfig(obj, dir, lookupEnv)
		if len(errs) > 0 {
			for _, is := range fieldIssues(file, so.Index, errs) {
				is.Detail = "last known good from lastgood.json: " + is.Detail + "; its daemon is neither started nor stopped"
				issues = append(issues, is)
			}
			continue
		}
		cfg := res.config
		out = append(out, &Daemon{Object: obj, Config: cfg, Identity: cfg.Identity(), File: file, Index: so.Index, EnvNames: res.envNames})
	}
	return out, issues
}

func absPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	return abs
}
