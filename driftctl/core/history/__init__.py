"""What the instance's runs applied, kept in the cluster: the record of one run
(`record`), the bounded ring that keeps the records (`ring`), and what `history` and
`status` read of them (`query`). Pure: the shell reads and writes the ring's ConfigMaps."""
