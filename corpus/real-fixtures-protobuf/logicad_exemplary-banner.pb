-
+
testid	testimpid¸…ëQ¸¾?"456J789R123