package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestSettingsFlags(t *testing.T) {
	s := Settings{Sandbox: "best", Timeout: 30 * time.Second, Budget: 2 * time.Minute, Memory: 512 << 20,
		Bonus: true, PrivateTests: true, Exercises: []string{"10.1", "10.3"}}
	assert.Equal(t, []string{"--sandbox best", "--timeout 30s", "--budget 2m0s", "--memory 512MiB", "--no-hidden", "--bonus",
		"--tests DIR", "--lab 10.1,10.3"}, s.Flags(), "Settings.Flags of every setting")
	assert.Equal(t, []string{"--memory 1.0GiB"}, Settings{Memory: 1 << 30, Hidden: true}.Flags(),
		"Settings.Flags leaves out what was not set and the hidden tests that ran")
}
