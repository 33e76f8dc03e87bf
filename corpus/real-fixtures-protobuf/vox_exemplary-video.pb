
$d64fdeae-cb1c-4322-8fb6-18f5ec49bb76l
j
$05349123-29e2-4be0-b662-48914f75ebe1$d190d6f3-5264-4df5-91b2-8a9c72cbeb6aþÔxé&1@2<VAST>...</VAST>ˆ"PLN