package spec

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Document is one non-empty YAML document of a spec file: the decoded object,
// the reasons it is not acceptable as written, or both.
type Document struct {
	// Index counts non-empty documents from 0, so `a.yaml[1]` is the second object.
	Index int
	// Object is nil when the document could not be decoded at all.
	Object *ChatDaemon
	Errs   field.ErrorList
}

// Decode splits a multi-document YAML file and strictly decodes each document.
// Decoding does not default or validate; a document is acceptable only when
// it has an Object and no Errs.
func Decode(data []byte) ([]Document, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs []Document
	searchFrom := 0
	for {
		chunk, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return docs, fmt.Errorf("splitting YAML documents: %w", err)
		}
		// The reader hands back each document's own bytes; finding them in the
		// file lets YAML errors name the line of the file, not of the document.
		firstLine := 0
		if at := bytes.Index(data[searchFrom:], chunk); at >= 0 {
			firstLine = bytes.Count(data[:searchFrom+at], []byte("\n"))
			searchFrom += at + len(chunk)
		}
		if isEmptyDocument(chunk) {
			continue
		}
		doc := Document{Index: len(docs)}
		doc.Object, doc.Errs = decodeDocument(chunk, firstLine)
		docs = append(docs, doc)
	}
}

func decodeDocument(chunk []byte, firstLine int) (*ChatDaemon, field.ErrorList) {
	// YAMLToJSONStrict rejects duplicate YAML keys, which json decoding would
	// otherwise resolve as "last one wins".
	js, err := yaml.YAMLToJSONStrict(chunk)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(nil, field.OmitValueType{}, "not valid YAML: "+yamlMessage(err, firstLine))}
	}
	if bytes.Equal(bytes.TrimSpace(js), []byte("null")) {
		return nil, nil
	}
	return decodeJSON(js)
}

// decodeJSON strictly decodes one object from JSON: a spec document once
// converted, or an object lastgood.json saved.
func decodeJSON(js []byte) (*ChatDaemon, field.ErrorList) {
	var errs field.ErrorList
	var obj ChatDaemon
	strictErrs, err := sigsjson.UnmarshalStrict(js, &obj)
	if err != nil {
		return nil, decodeErrors(js, err)
	}
	for _, se := range strictErrs {
		errs = append(errs, strictError(se))
	}
	if obj.APIVersion != APIVersion {
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), obj.APIVersion, []string{APIVersion}))
	}
	if obj.Kind != Kind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), obj.Kind, []string{Kind}))
	}
	// Unknown fields and a wrong apiVersion leave a fully decoded object, so
	// validation still runs and every error of the document is reported at once.
	return &obj, errs
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// yamlMessage flattens a YAML error to one line and renumbers its lines from
// the start of the file.
func yamlMessage(err error, firstLine int) string {
	msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
	msg = strings.TrimPrefix(msg, "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:")
	msg = strings.Join(strings.Fields(msg), " ")
	return yamlLine.ReplaceAllStringFunc(msg, func(m string) string {
		n, _ := strconv.Atoi(strings.TrimPrefix(m, "line "))
		return "line " + strconv.Itoa(n+firstLine)
	})
}

// isEmptyDocument reports whether a chunk holds only comments and blank lines.
func isEmptyDocument(chunk []byte) bool {
	for line := range bytes.Lines(chunk) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' && !bytes.Equal(line, []byte("---")) {
			return false
		}
	}
	return true
}

// strictError turns an unknown or duplicate field reported by sigs.k8s.io/json
// into a field error at that path.
func strictError(err error) *field.Error {
	var fe sigsjson.FieldError
	if !errors.As(err, &fe) {
		return field.Invalid(nil, field.OmitValueType{}, err.Error())
	}
	p := pathFromString(fe.FieldPath())
	switch {
	case strings.HasPrefix(err.Error(), "unknown field"):
		return field.Forbidden(p, "unknown field")
	case strings.HasPrefix(err.Error(), "duplicate field"):
		return field.Forbidden(p, "duplicate key")
	default:
		return field.Invalid(p, field.OmitValueType{}, err.Error())
	}
}

// decodeErrors explains a failed decode with field paths. sigs.k8s.io/json keeps
// its type error internal, and metav1.Duration reports parse errors without a
// path, so the document is looked at again to find where it went wrong.
func decodeErrors(js []byte, err error) field.ErrorList {
	errs := durationErrors(js)
	var te *json.UnmarshalTypeError
	var probe ChatDaemon
	if perr := json.Unmarshal(js, &probe); errors.As(perr, &te) {
		// Only the JSON kind of the bad value is named: the value itself may be a
		// token written in the wrong place.
		kind, _, _ := strings.Cut(te.Value, " ")
		switch p := pathFromString(te.Field); {
		case te.Field == "":
			errs = append(errs, field.Invalid(nil, field.OmitValueType{}, fmt.Sprintf("a document must be a mapping (a ChatDaemon object), not %s", kind)))
		case !hasPath(errs, p.String()):
			errs = append(errs, &field.Error{
				Type: field.ErrorTypeTypeInvalid, Field: p.String(), BadValue: field.OmitValueType{},
				Detail: fmt.Sprintf("must be %s, not %s", typeName(te.Type.Kind().String()), kind),
			})
		}
	}
	if len(errs) == 0 {
		errs = append(errs, field.Invalid(nil, field.OmitValueType{}, err.Error()))
	}
	return errs
}

func hasPath(errs field.ErrorList, path string) bool {
	for _, e := range errs {
		if e.Field == path {
			return true
		}
	}
	return false
}

func durationErrors(js []byte) field.ErrorList {
	var raw struct {
		Spec map[string]json.RawMessage `json:"spec"`
	}
	if json.Unmarshal(js, &raw) != nil {
		return nil
	}
	var errs field.ErrorList
	for _, name := range []string{"readyTimeout", "gracefulTimeout", "killTimeout"} {
		v, ok := raw.Spec[name]
		if !ok {
			continue
		}
		p := field.NewPath("spec", name)
		var s string
		if json.Unmarshal(v, &s) != nil {
			errs = append(errs, &field.Error{Type: field.ErrorTypeTypeInvalid, Field: p.String(), BadValue: string(v), Detail: `must be a duration string such as "8s" or "500ms"`})
			continue
		}
		if _, perr := time.ParseDuration(s); perr != nil {
			errs = append(errs, field.Invalid(p, s, `must be a duration such as "8s" or "500ms"`))
		}
	}
	return errs
}

func typeName(kind string) string {
	switch kind {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice":
		return "a list"
	case "struct", "map":
		return "a mapping"
	default:
		return kind
	}
}

// pathFromString turns "spec.discord.authorizedUserIds[2]" into a field.Path.
func pathFromString(s string) *field.Path {
	var p *field.Path
	for _, part := range strings.Split(s, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			if p == nil {
				p = field.NewPath(name)
			} else {
				p = p.Child(name)
			}
		}
		for rest != "" {
			idx, after, _ := strings.Cut(rest, "]")
			var i int
			if _, err := fmt.Sscanf(idx, "%d", &i); err == nil && p != nil {
				p = p.Index(i)
			}
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return p
}
