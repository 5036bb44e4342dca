package systemtest

import (
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// examplePath is the commented spec shipped beside the service files.
const examplePath = "../../../config/daemons.example.yaml"

// The example spec says, in its own comment, how to check it: that exact
// command, run from the repository root as the comment says, must pass. A
// check line that exits 2 teaches a newcomer that the file is broken.
func TestExampleSpecChecksAsItsCommentSays(t *testing.T) {
	data, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	var line string
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if strings.Contains(strings.ToLower(l), "check it with") {
			for _, next := range lines[i+1:] {
				if s := strings.TrimSpace(strings.TrimPrefix(next, "#")); strings.Contains(s, "reconciler validate") {
					line = s
					break
				}
			}
			break
		}
	}
	if line == "" {
		t.Fatalf("%s: no \"check it with\" command found in its comments", examplePath)
	}
	var env, args []string
	fields := strings.Fields(line)
	for len(fields) > 0 && regexp.MustCompile(`^[A-Z_]+=`).MatchString(fields[0]) {
		env, fields = append(env, fields[0]), fields[1:]
	}
	if len(fields) == 0 || fields[0] != "reconciler" {
		t.Fatalf("check line %q does not run reconciler", line)
	}
	args = fields[1:]
	cmd := exec.Command(binary, args...)
	cmd.Dir = "../../.."
	// Only the variables the line sets: a token the developer happens to
	// have exported must not make the check pass.
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "ok: 2 daemons: discord, slack\n" {
		t.Fatalf("%q from the repository root: %v\n%s", line, err, out)
	}
}

// The quickstart says the example is its pair of bots with comments: the
// same objects, ids and users; only where the tokens come from differs,
// and the example spells out defaults the quickstart leaves out.
func TestExampleSpecIsTheQuickstartsPair(t *testing.T) {
	md, err := os.ReadFile("../../../docs/quickstart.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)cat > ~/\.gjc/agent/daemons\.yaml <<'EOF'\n(.*?)\nEOF\n`).FindSubmatch(md)
	if m == nil {
		t.Fatal("docs/quickstart.md: the spec's heredoc is not found")
	}
	example, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	quick, ex := specObjects(t, string(m[1])), specObjects(t, string(example))
	if !reflect.DeepEqual(quick, ex) {
		t.Errorf("the quickstart's spec and %s differ, tokens and defaults aside:\nquickstart: %v\nexample:    %v", examplePath, quick, ex)
	}
}

// specObjects decodes a multi-document spec and keeps what a newcomer
// copies: names, providers and each provider block without its tokens.
func specObjects(t *testing.T, text string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, doc := range strings.Split(text, "\n---\n") {
		var o map[string]any
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatal(err)
		}
		sp, _ := o["spec"].(map[string]any)
		provider, _ := sp["provider"].(string)
		block, _ := sp[provider].(map[string]any)
		for k := range block {
			if strings.HasSuffix(k, "Token") {
				delete(block, k)
			}
		}
		objs = append(objs, map[string]any{
			"metadata": o["metadata"], "provider": provider, "generation": sp["generation"], provider: block,
		})
	}
	return objs
}
