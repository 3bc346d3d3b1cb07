/**
 * Text in languages other than Chinese and English for scripts/bench-language.ts: three short
 * paragraphs per language (a city, a piece of technology, a kitchen), written for this project
 * (no source; same licence as the repository). Each is cut into samples of several lengths by the
 * bench. ISO 639-1 codes.
 */
export const OTHER_LANGUAGE_TEXTS: Readonly<Record<string, readonly string[]>> = {
  fr: [
    "La vieille ville se réveille tôt : les boulangers ouvrent leurs portes avant l'aube et l'odeur du pain chaud remplit les ruelles. Sur la place du marché, les marchands installent leurs étals de fruits, de fromages et de fleurs, pendant que les premiers touristes cherchent un café ouvert.",
    "Le nouveau téléphone se recharge en moins d'une heure et sa batterie tient deux jours. Les ingénieurs ont surtout travaillé sur l'appareil photo, qui prend désormais des images nettes même la nuit, et sur la sécurité des données personnelles enregistrées dans l'appareil.",
    "Pour réussir une soupe à l'oignon, il faut d'abord faire revenir les oignons très doucement dans le beurre jusqu'à ce qu'ils soient bien dorés. On ajoute ensuite un bouillon de bœuf, on laisse mijoter une demi-heure, puis on sert avec du pain grillé et du fromage fondu.",
  ],
  de: [
    "Die Altstadt liegt am Ufer eines breiten Flusses, über den drei steinerne Brücken führen. Im Sommer sitzen die Leute bis spät in die Nacht in den Biergärten, und am Wochenende kommen viele Besucher aus den umliegenden Dörfern, um auf dem Markt einzukaufen.",
    "Das neue Notebook ist leichter als sein Vorgänger und hat einen schnelleren Prozessor. Besonders gelobt wird die Tastatur, auf der man auch lange Texte bequem schreiben kann, während der Lüfter selbst bei hoher Last kaum zu hören ist.",
    "Für einen guten Apfelkuchen braucht man säuerliche Äpfel, Butter, Zucker, Mehl und ein wenig Zimt. Der Teig sollte vor dem Backen eine Stunde im Kühlschrank ruhen, damit er beim Ausrollen nicht reißt und im Ofen schön knusprig wird.",
  ],
  es: [
    "El barrio antiguo está lleno de calles estrechas y plazas pequeñas donde los vecinos se reúnen por la tarde. En verano las terrazas se llenan de gente que toma algo fresco mientras los niños juegan al fútbol junto a la fuente.",
    "La empresa presentó ayer su nuevo ordenador portátil, más delgado y con una pantalla de mayor resolución. Según los primeros análisis, la batería dura casi un día entero de trabajo y el equipo apenas se calienta durante el uso normal.",
    "Para preparar una buena tortilla de patatas hay que cortar las patatas en láminas finas y freírlas a fuego lento en abundante aceite de oliva. Después se mezclan con los huevos batidos, se deja reposar la mezcla unos minutos y se cuaja en la sartén por ambos lados.",
  ],
  it: [
    "Il centro storico si raggiunge a piedi dalla stazione in pochi minuti. Le strade sono strette e piene di botteghe artigiane, e ogni domenica mattina la piazza principale ospita un mercato di prodotti locali, formaggi e vino della zona.",
    "Il nuovo telefono ha uno schermo più luminoso e una fotocamera che funziona bene anche con poca luce. Il produttore promette aggiornamenti del sistema per cinque anni, una scelta che dovrebbe allungare la vita del dispositivo.",
    "Per fare una buona pasta al pomodoro bastano pochi ingredienti di qualità: pomodori maturi, aglio, olio extravergine e qualche foglia di basilico. Il sugo deve cuocere piano per circa venti minuti, poi si unisce alla pasta scolata al dente.",
  ],
  pt: [
    "A cidade fica à beira-mar e as suas ruas descem em direção ao porto, onde os pescadores vendem o peixe logo de manhã. Ao fim da tarde, os moradores passeiam junto ao rio e param nos cafés para conversar com os amigos.",
    "O novo computador portátil é mais leve e silencioso do que o modelo anterior. A bateria aguenta um dia inteiro de trabalho e o ecrã tem cores mais fiéis, o que agrada sobretudo a quem trabalha com fotografia.",
    "Para fazer um bom arroz de marisco é preciso um caldo saboroso, feito com as cabeças do camarão, cebola, alho e tomate. O arroz coze nesse caldo durante cerca de quinze minutos e o marisco junta-se apenas no fim, para não ficar rijo.",
  ],
  nl: [
    "De binnenstad is klein maar gezellig, met smalle grachten en oude pakhuizen die nu woningen en winkels zijn. Op zaterdag staat er een grote markt op het plein, waar je verse vis, kaas en bloemen kunt kopen.",
    "De nieuwe laptop is dunner en lichter dan zijn voorganger, en de accu gaat langer mee. Vooral het scherm valt op: het is helder, scherp en ook buiten in de zon nog goed leesbaar.",
    "Voor een goede erwtensoep laat je de spliterwten samen met een stuk vlees een paar uur zachtjes koken. Daarna voeg je prei, wortel, knolselderij en aardappel toe, en de soep is pas echt goed als de lepel erin blijft staan.",
  ],
  ru: [
    "Старый город расположен на высоком берегу реки, и с его улиц открывается красивый вид на долину. Летом здесь много туристов, которые гуляют по набережной, заходят в музеи и пробуют местную кухню в небольших кафе.",
    "Новый смартфон получил более яркий экран и камеру, которая хорошо снимает даже в темноте. Производитель обещает обновлять программное обеспечение в течение пяти лет, а батарея держит заряд почти два дня.",
    "Для настоящего борща нужны свёкла, капуста, морковь, картофель и хороший мясной бульон. Свёклу лучше тушить отдельно с небольшим количеством уксуса, чтобы она сохранила яркий цвет, а подавать борщ принято со сметаной.",
  ],
  ja: [
    "古い町並みが残るこの地区には、木造の家や小さな商店が今も並んでいます。朝早くから市場が開かれ、地元の人たちが新鮮な野菜や魚を買いに集まります。夕方になると観光客も増え、通りはにぎやかになります。",
    "新しいスマートフォンは画面が明るくなり、暗い場所でもきれいな写真が撮れるようになりました。電池の持ちも良くなり、普通に使えば二日近く充電しなくても大丈夫だそうです。",
    "おいしい味噌汁を作るには、まず昆布とかつお節でだしを取ることが大切です。具は豆腐とわかめが定番ですが、季節の野菜を入れてもおいしくなります。味噌は火を止めてから溶き入れましょう。",
  ],
  ko: [
    "이 동네에는 오래된 한옥과 작은 가게들이 골목마다 남아 있습니다. 아침에는 시장이 열려 주민들이 신선한 채소와 생선을 사러 나오고, 저녁이 되면 관광객들로 거리가 붐빕니다.",
    "새로 나온 스마트폰은 화면이 더 밝아지고 어두운 곳에서도 사진이 선명하게 찍힙니다. 배터리도 오래 가서 보통으로 사용하면 이틀 가까이 충전하지 않아도 된다고 합니다.",
    "맛있는 된장찌개를 끓이려면 먼저 멸치와 다시마로 육수를 내는 것이 중요합니다. 두부와 애호박, 양파를 넣고 된장을 풀어 끓인 뒤 마지막에 고추와 파를 넣으면 됩니다.",
  ],
  vi: [
    "Khu phố cổ nằm bên bờ sông, với những con đường nhỏ và những ngôi nhà mái ngói đã có từ hàng trăm năm. Buổi sáng, chợ mở cửa từ rất sớm và người dân địa phương đến mua rau, cá và hoa quả tươi.",
    "Chiếc điện thoại mới có màn hình sáng hơn và máy ảnh chụp đẹp hơn trong điều kiện thiếu sáng. Nhà sản xuất cho biết pin có thể dùng gần hai ngày nếu sử dụng bình thường.",
    "Để nấu một nồi phở ngon, cần ninh xương bò trong nhiều giờ cùng với gừng và hành nướng. Nước dùng phải trong và thơm mùi quế, hồi, rồi mới chan lên bánh phở và thịt bò thái mỏng.",
  ],
  ar: [
    "تقع المدينة القديمة على تلة تطل على البحر، وتتميز بأزقتها الضيقة وأسواقها التقليدية. في الصباح يتوافد السكان إلى السوق لشراء الخضار والفواكه الطازجة، وفي المساء يجلسون في المقاهي للحديث مع الأصدقاء.",
    "يتميز الهاتف الجديد بشاشة أكثر سطوعا وكاميرا تلتقط صورا واضحة حتى في الإضاءة الضعيفة. وتقول الشركة المصنعة إن البطارية تكفي ليومين تقريبا مع الاستخدام العادي.",
    "لتحضير طبق جيد من الأرز بالدجاج يجب أولا تحمير الدجاج مع البصل والتوابل، ثم يضاف الأرز والماء ويترك على نار هادئة حتى ينضج. ويقدم الطبق عادة مع السلطة واللبن.",
  ],
};
