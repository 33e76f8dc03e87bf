
abc=
;
1imp123{®Gáz„?2	<b>hi</b>Jtest_cidRtest_banner_crid@
>
2imp123{®Gáz„?2<VAST></VAST>Jtest_cidRtest_video_crid