
some-impression-id1i
_

2181314349some-impression-id1=
×£p½*@"9062972<div>some adm</div>J906293R906299€¬ˆú906295183975330-5-29038-2"USD