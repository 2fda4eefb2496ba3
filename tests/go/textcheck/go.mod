module textcheck

go 1.21
