package labels

import "testing"

func TestNormalizeColor(t *testing.T) {
	for in, want := range map[string]string{
		"#00AABB": "#00aabb", "00aabb": "#00aabb", "#AbC": "#aabbcc", "abc": "#aabbcc",
	} {
		if got, err := NormalizeColor(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "#", "#12345", "1234567", "#gggggg", "##abc", "red", " abc"} {
		if _, err := NormalizeColor(bad); err == nil || err.Error() != "bad color code: "+bad {
			t.Errorf("%q: %v, want bad color code", bad, err)
		}
	}
}
