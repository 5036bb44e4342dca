package spec

import "k8s.io/apimachinery/pkg/util/validation"

// NameErrors says why name cannot be a daemon's name; none if it can. The
// name is also a directory name, so the rule (a DNS-1123 label) is what
// keeps "x/../d1" or "d1/" from naming another daemon's dir: a name read
// back from any file must pass this very check, not a copy of it.
func NameErrors(name string) []string { return validation.IsDNS1123Label(name) }
