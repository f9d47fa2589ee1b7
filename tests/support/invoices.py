"""Texts of real-world kinds of invoices the classifier and the rules engine are tested on."""

HOTEL = """Hotel Grand Palace Pvt. Ltd.
GSTIN: 27AABCH1234F1Z5
TAX INVOICE
Guest Name: Mr. A. Rao          Room No: 412
Arrival: 18-Apr-2014            Departure: 20-Apr-2014
Room Charges (2 nights)                      9,000.00
Food & Beverages                               850.00
Sub Total                                    9,850.00
CGST 6%                                        591.00
SGST 6%                                        591.00
Grand Total                                 11,032.00"""

FACTUUR = """Coolblue B.V.
Weena 664, 3012 CN Rotterdam
Factuur
Factuurnummer: 8123456
Factuurdatum: 3 januari 2024
Omschrijving                 Aantal    Bedrag
Laptop                       1         € 826,45
Subtotaal                              € 826,45
Btw 21%                                € 173,55
Totaal                                 € 1.000,00"""

CREDIT_NOTE = """Au bon moulin SARL
Avoir AV-2017-0005
Facture liée FA-2017-0010
Date de facture 16/11/2017
Total HT -218,48 €
Total TTC -233,47 €"""
