// Given code: JSON values as encoding/json hands them out. Do not edit this
// file; the grader replaces it with its own copy.

package session

import "reflect"

// A JSON value in this course is exactly what json.Unmarshal stores in an any:
//
//	nil             null
//	bool            true, false
//	string          "text"
//	float64         a finite number (never NaN or ±Inf, never int or int64)
//	[]any           a list of JSON values
//	map[string]any  a plain object of JSON values
//
// Nothing else is a JSON value: not structs or pointers posing as objects,
// not map[string]string or []string, not funcs, channels or complex numbers.
// Restricting numbers to float64 keeps a round trip exact: a value that went
// to disk and came back compares equal to the one that went out.

// CloneValue returns a deep copy of a JSON value: new maps and slices all the
// way down. It assumes v is a JSON value without cycles; check that first.
func CloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return CloneObject(x)
	case []any:
		if x == nil {
			return []any(nil)
		}
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = CloneValue(item)
		}
		return out
	default:
		return v
	}
}

// CloneObject is CloneValue for an object. A nil map stays nil.
func CloneObject(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, item := range m {
		out[k] = CloneValue(item)
	}
	return out
}

// ContainerID identifies one map or one slice in memory; two values with
// the same ContainerID are the same container (see ContainerIdentity).
type ContainerID struct {
	kind reflect.Kind
	ptr  uintptr
	len  int
}

// ContainerIdentity reports which container v is, for finding cycles: a
// JSON-safe check keeps the ContainerIDs of the containers it is inside of,
// and meeting one of them again means the value contains itself. It reports
// ok=false for anything that cannot contain itself (scalars, empty slices,
// nil maps). Go has no object identity you can compare directly for maps and
// slices, which is why this helper is given.
func ContainerIdentity(v any) (id ContainerID, ok bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map:
		if rv.IsNil() {
			return ContainerID{}, false
		}
		return ContainerID{kind: reflect.Map, ptr: rv.Pointer()}, true
	case reflect.Slice:
		if rv.Len() == 0 {
			return ContainerID{}, false
		}
		return ContainerID{kind: reflect.Slice, ptr: rv.Pointer(), len: rv.Len()}, true
	default:
		return ContainerID{}, false
	}
}
