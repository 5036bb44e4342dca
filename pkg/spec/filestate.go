package spec

import (
	"os"
	"time"
)

// fileState is what the loader knows of one spec file.
type fileState struct {
	path    string
	stamp   stamp
	readAt  time.Time
	content []byte
	// secrets are the fromFile secrets the file's objects were resolved from;
	// a change to one re-evaluates the file even when the file is unchanged.
	secrets map[string]stamp
	readErr string
	docs    []docResult
	// good is the file's last known good contribution; hasGood says whether it
	// ever validated (an empty file contributes nothing, validly).
	good    []*Daemon
	hasGood bool
	// goodSaved are good's objects as written, for lastgood.json; with
	// fromDisk, they were read back from it, not from the file, and
	// restoreErrs are the ones whose secrets did not resolve (left out of
	// good).
	goodSaved   []SavedObject
	fromDisk    bool
	restoreErrs []Issue
	// abs is path made absolute, as lastgood.json names it.
	abs string
	// goneSince is when the file was first found gone from its directory
	// source; zero while it is listed.
	goneSince time.Time
}

func (fs *fileState) gone() bool { return !fs.goneSince.IsZero() }

// docResult is one evaluated document.
type docResult struct {
	index  int
	name   string
	daemon *Daemon
	errs   []Issue
	warns  []Issue
}

// refresh re-reads the file if it may have changed and reports whether what it
// contributes may differ.
func (fs *fileState) refresh(now time.Time, lookupEnv func(string) (string, bool)) bool {
	if fs.readErr == "" && fs.content != nil && fs.secretsUnchanged() {
		// Lstat: a link swapped in for the file must look changed, to be refused.
		if fi, err := os.Lstat(fs.path); err == nil && fs.stamp.unchanged(stampOf(fi), fs.readAt) {
			return false
		}
	}
	data, st, err := readSpecFile(fs.path)
	if err != nil {
		prev := fs.readErr
		fs.readErr, fs.content, fs.docs = err.Error(), nil, nil
		return prev != fs.readErr || prev == ""
	}
	sameAsBefore := fs.readErr == "" && sameContent(fs.content, data) && fs.secretsUnchanged()
	fs.stamp, fs.readAt, fs.content, fs.readErr = st, now, data, ""
	if sameAsBefore {
		return false
	}
	fs.evaluate(data, lookupEnv)
	return true
}

func (fs *fileState) secretsUnchanged() bool {
	for p, was := range fs.secrets {
		fi, err := os.Lstat(p)
		if err != nil || !was.unchanged(stampOf(fi), fs.readAt) {
			return false
		}
	}
	return true
}

// evaluate decodes, defaults, validates and resolves every document.
func (fs *fileState) evaluate(data []byte, lookupEnv func(string) (string, bool)) {
	fs.docs, fs.secrets = nil, map[string]stamp{}
	docs, err := Decode(data)
	if err != nil {
		fs.readErr = err.Error()
	}
	dir := specDir(fs.path)
	for _, doc := range docs {
		fs.docs = append(fs.docs, fs.evaluateDocument(doc, dir, lookupEnv))
	}
}

// evaluateDocument reports every problem of a document at once: decoding,
// validation and secret resolution all run as far as the object allows.
func (fs *fileState) evaluateDocument(doc Document, dir string, lookupEnv func(string) (string, bool)) docResult {
	r := docResult{index: doc.Index, errs: fieldIssues(fs.path, doc.Index, doc.Errs)}
	obj := doc.Object
	if obj == nil {
		return r
	}
	Default(obj)
	r.name = obj.Name
	r.errs = append(r.errs, fieldIssues(fs.path, doc.Index, Validate(obj))...)
	res, errs := resolveConfig(obj, dir, lookupEnv)
	r.errs = append(r.errs, fieldIssues(fs.path, doc.Index, errs)...)
	for _, p := range res.secretFiles {
		if fi, err := os.Lstat(p); err == nil {
			fs.secrets[p] = stampOf(fi)
		} else {
			fs.secrets[p] = stamp{}
		}
	}
	for _, w := range res.warnings {
		r.warns = append(r.warns, Issue{File: fs.path, Index: doc.Index, Detail: w})
	}
	if len(r.errs) == 0 {
		cfg := res.config
		r.daemon = &Daemon{Object: obj, Config: cfg, Identity: cfg.Identity(), File: fs.path, Index: doc.Index, EnvNames: res.envNames}
	}
	return r
}

// currentlyClean reports whether the file read and every document evaluated
// without errors of its own (duplicates across files aside).
func (fs *fileState) currentlyClean() bool {
	if fs.readErr != "" {
		return false
	}
	for _, d := range fs.docs {
		if len(d.errs) > 0 {
			return false
		}
	}
	return true
}

func (fs *fileState) declares(name string) bool {
	for _, d := range fs.docs {
		if d.name == name {
			return true
		}
	}
	return false
}
