package cli

import _ "github.com/stretchr/testify/require"
