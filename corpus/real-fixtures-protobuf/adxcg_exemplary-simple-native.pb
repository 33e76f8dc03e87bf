
test-request-idR
I
test-request-native-idtest-imp-native-idÂõ(\ò?2	native-ad€ˆˆadxcg"USD